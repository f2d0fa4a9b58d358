"""Type stubs of the compiled module (python/src/lib.rs)."""

from typing import Any, Dict, List, Mapping, Optional, Tuple, Union, final

from ._model import Diagnostic

VERSION: str
CONTRACT_VERSION: str
ACTIONS: Tuple[str, ...]

def handle_json(request: str) -> str: ...
def handle_json_many(requests: List[str]) -> List[str]: ...
def call(op: str, input: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The contract without JSON text: the response as a dict, or None when ``input`` holds
    something only the JSON-text path can explain (then use ``handle_json``)."""
def parse_source(text: str) -> str: ...
def text_from_bytes(data: bytes) -> str: ...
def schemas_json() -> str: ...
def sweep(input_json: str, jobs: Optional[int] = None) -> str:
    """A sweep (the ``sweep`` op's input as JSON text) on ``jobs`` threads without the GIL; the
    ``SweepOutput`` as JSON text. Raises RestartkitError when refused, KeyboardInterrupt on Ctrl-C."""

@final
class Policy:
    """A Pod or Job compiled for fast exit-code decisions (made by ``restartkit.compile``)."""

    def __init__(self, object_json: str, options_json: str) -> None: ...
    @property
    def containers(self) -> Tuple[str, ...]:
        """Container names in index order (containers, then init containers)."""
    @property
    def warnings(self) -> Tuple[Diagnostic, ...]:
        """The compiled object's validation errors as warnings (code ``invalid-object``), found
        once when it was compiled; empty for a valid object. The decisions stay upstream's."""
    def decide(self, container: Union[str, int], exit_code: int) -> str:
        """The action name for ``container`` (name or index) exiting with ``exit_code``."""
    def decide_code(self, container: Union[str, int], exit_code: int) -> int:
        """The action code (index into ``restartkit.ACTIONS``) of one decision."""
    def decide_many(self, container: Union[str, int], exit_codes: Any) -> bytes:
        """One action code per exit code, for a list/tuple of int or a buffer of int32
        (``bytes``, ``array.array('i')``, numpy int32, memoryview). Runs without the GIL."""
def run_cli(args: List[str]) -> int:
    """Runs the ``restartkit`` command with ``args`` (no program name) in this process; returns its
    exit status. Writes to the process's stdout and stderr."""
