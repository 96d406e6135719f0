"""No module imports itself back through others: lint-imports checks the layers between
apps; this checks every module, so a cycle inside an app is caught too."""

from __future__ import annotations

import grimp

PACKAGES = ("lifeassistant", "skills", "documents", "chat")


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Each group of modules that import one another in a circle (Tarjan's components)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in on_stack:
                lowest[module] = min(lowest[module], index[imported])
        if lowest[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_back_through_others() -> None:
    assert import_cycles(grimp.build_graph(*PACKAGES)) == []


def test_a_cycle_is_found_when_there_is_one() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(module)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")

    assert import_cycles(graph) == [["a.x", "a.y"]]
