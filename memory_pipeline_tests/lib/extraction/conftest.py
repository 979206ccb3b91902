import pytest

from memory_pipeline_tests.support.fake_ollama import FakeOllama


@pytest.fixture
def server():
    """A loopback server that speaks Ollama's API, scripted per test."""
    with FakeOllama() as fake:
        yield fake
