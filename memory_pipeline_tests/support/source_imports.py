"""A package's modules read from their source: each module's dotted name and every module it
imports (at the top, inside a function or under `TYPE_CHECKING`), for the layering tests."""

import ast
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    name = ".".join(path.relative_to(root.parent).with_suffix("").parts)
    return name.removesuffix(".__init__")


def imports_of(path: Path) -> set[str]:
    """Every module the file imports: at the top, inside a function or under `TYPE_CHECKING`; a
    relative import keeps its leading dots (`.live_sync`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = "." * node.level + node.module
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found
