# Type stubs for cudyn.nccl (python/cudyn/nccl.py over python/src/nccl.c);
# tests/check-stubs.sh checks them against the module.
from typing import Any, ContextManager, Sequence, Union, final

from typing_extensions import Self, TypeAlias

from ._cudyn import DeviceArray, _HasCudaArrayInterface, _HasDLPack, _StreamLike

_Buffer: TypeAlias = Union[DeviceArray, _HasCudaArrayInterface, _HasDLPack]
_Op: TypeAlias = Union[str, int]

__all__ = ["Communicator", "get_unique_id", "group", "group_start", "group_end", "version", "info", "has",
           "mpi_cuda_support", "SUM", "PROD", "MAX", "MIN", "AVG", "UNIQUE_ID_BYTES", "DTYPES"]

SUM: int
PROD: int
MAX: int
MIN: int
AVG: int
UNIQUE_ID_BYTES: int
DTYPES: str

@final
class Communicator:
    """Communicator(nranks, unique_id, rank, device=None): one rank of an NCCL communicator."""
    def __new__(cls, nranks: int, unique_id: bytes, rank: int, device: int | None = None) -> Self: ...
    @classmethod
    def for_devices(cls, devices: int | Sequence[int], /) -> list[Communicator]:
        """A Communicator per device of this process (a list of ordinals, or a count)."""
    def all_reduce(self, sendbuf: _Buffer, recvbuf: _Buffer | None = None, op: _Op = "sum",
                   stream: _StreamLike = None) -> None:
        """The reduction of every rank's sendbuf into recvbuf (in place without one)."""
    def broadcast(self, sendbuf: _Buffer, recvbuf: _Buffer | None = None, root: int = 0,
                  stream: _StreamLike = None) -> None:
        """root's sendbuf into every rank's recvbuf."""
    def reduce(self, sendbuf: _Buffer, recvbuf: _Buffer | None = None, op: _Op = "sum", root: int = 0,
               stream: _StreamLike = None) -> None:
        """The reduction into root's recvbuf."""
    def all_gather(self, sendbuf: _Buffer, recvbuf: _Buffer, stream: _StreamLike = None) -> None:
        """Every rank's sendbuf, in rank order, into every recvbuf (size x as large)."""
    def reduce_scatter(self, sendbuf: _Buffer, recvbuf: _Buffer, op: _Op = "sum", stream: _StreamLike = None) -> None:
        """The reduction of size blocks, block r into rank r's recvbuf."""
    def send(self, buf: _Buffer, peer: int, stream: _StreamLike = None) -> None:
        """buf to peer, inside cudyn.nccl.group() with its recv."""
    def recv(self, buf: _Buffer, peer: int, stream: _StreamLike = None) -> None:
        """buf from peer, inside cudyn.nccl.group() with its send."""
    def split(self, color: int, key: int | None = None) -> Communicator:
        """A new Communicator of the ranks of one color, ordered by key."""
    def check(self) -> None:
        """Raises NCCL's asynchronous error, if any (no abort)."""
    def wait(self, stream: _StreamLike = None, timeout: float | None = None) -> None:
        """Waits for the stream's work; NCCL's asynchronous error or the timeout raises (and aborts, as abort()
        does); Ctrl-C answers it."""
    def abort(self) -> None:
        """Stops the communicator's work at once; destroy() follows.  Raises InvalidArgument while in use."""
    def destroy(self) -> None:
        """Frees the communicator after its queued work.  Raises InvalidArgument while in use."""
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...
    @property
    def rank(self) -> int:
        """This rank (0 .. size - 1)."""
    @property
    def size(self) -> int:
        """The number of ranks."""
    @property
    def device(self) -> int:
        """Its device (an ordinal of this process)."""

def get_unique_id() -> bytes:
    """A new unique id, made on one rank and handed to the others."""
def info() -> dict[str, Any]:
    """What cudyn found of NCCL (cudyn_nccl_info); never raises for a missing NCCL."""
def version() -> tuple[int, ...]:
    """The version of the NCCL loaded: (2, 28, 9)."""
def has(name: str) -> bool:
    """Whether the NCCL loaded has the function name ("ncclCommSplit" or "CommSplit")."""
def mpi_cuda_support() -> dict[str, str]:
    """Whether MPI may be given device memory: answer, source, reason (cudyn_mpi_cuda_support)."""
def group_start() -> None:
    """Starts a group; group() is the safer form."""
def group_end() -> None:
    """Ends a group, raising the first failure of its calls."""
def group() -> ContextManager[None]:
    """with cudyn.nccl.group(): the calls inside start together."""
