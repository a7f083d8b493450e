# Type stubs for cudyn.__main__ (python3 -m cudyn: what cudainfo prints).
from typing import Any, Sequence

SCHEMA: str
EXIT_OK: int
EXIT_USAGE: int
EXIT_NO_DRIVER: int
EXIT_INIT_FAILED: int
EXIT_NO_DEVICES: int
EXIT_PARTIAL: int
PROG: str

def outcome(facts: dict[str, Any]) -> tuple[int, str | None, str | None]:
    """(exit code, message, hint) as cudainfo decides them from the same facts."""
def without_hint(facts: dict[str, Any]) -> str:
    """The error's message without the hint its text ends with."""
def without_self_reference(hint: str | None) -> str | None:
    """The hint without the part that sends the reader to this command's --explain."""
def module_facts() -> dict[str, str]:
    """Which cudyn answered: the package's folder and its extension."""
def version_text(v: Any) -> str:
    """A CUDA version number as text (12080 -> "12.8"; "?" when unknown)."""
def print_text(facts: dict[str, Any], module: dict[str, Any]) -> None:
    """Prints the facts as cudainfo does."""
def print_explain(facts: dict[str, Any]) -> None:
    """The searches and the toolkit, as cudainfo --explain prints them."""
def toolkit_facts() -> dict[str, Any]:
    """cudyn.toolkit_info(), or why it could not be read."""
def json_value(value: Any) -> Any:
    """What json cannot write itself: bytes (a UUID) as hexadecimal."""
def main(argv: Sequence[str] | None = None) -> int:
    """python3 -m cudyn [--json] [--explain]: prints what cudainfo prints; returns cudainfo's exit code."""
