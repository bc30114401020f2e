# Type stubs of the nnef package (docs/python.md).
from collections import OrderedDict
from os import PathLike
from typing import IO, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, Union

import numpy as np

_Path = Union[str, PathLike]
ShapeFunc = Callable[..., Any]

__version__: str
LIMITS: Tuple[str, ...]
StandardOperations: Set[str]

class Error(ValueError): ...

class Identifier(str): ...

class Tensor(NamedTuple):
    name: str
    dtype: Optional[str]
    shape: Optional[List[int]]
    data: Optional[np.ndarray] = None
    quantization: Optional[Dict[str, Any]] = None

class Operation(NamedTuple):
    name: str
    attribs: "OrderedDict[str, Any]"
    inputs: "OrderedDict[str, Any]"
    outputs: "OrderedDict[str, Any]"
    dtype: Optional[str] = None

class Graph(NamedTuple):
    name: str
    tensors: Dict[str, Tensor]
    operations: List[Operation]
    inputs: List[str]
    outputs: List[str]

class Diagnostic(NamedTuple):
    severity: str
    stage: str
    code: str
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    byte_offset: Optional[int]
    notes: List[Tuple[str, Optional[str], Optional[int], Optional[int]]]
    text: str

class Validation(NamedTuple):
    ok: bool
    diagnostics: List[Diagnostic]
    summary: Dict[str, Any]
    truncated: bool

def parse_string(graph_str: str, quant_str: Optional[str] = None, stdlib: Optional[str] = None,
                 lowered: Optional[List[str]] = None, **limits: int) -> Graph: ...
def parse_file(graph_fn: _Path, quant_fn: Optional[_Path] = None, stdlib: Optional[str] = None,
               lowered: Optional[List[str]] = None, **limits: int) -> Graph: ...
def load_graph(path: _Path, stdlib: Optional[str] = None, lowered: Optional[List[str]] = None,
               load_variables: bool = True, **limits: int) -> Graph: ...
def save_graph(graph: Graph, path: _Path, annotate_shapes: bool = False) -> None: ...
def infer_shapes(graph: Graph, external_shapes: Optional[Mapping[str, Sequence[int]]] = None,
                 custom_shapes: Optional[Mapping[str, ShapeFunc]] = None) -> None: ...
def read_tensor(file: Union[IO[Any], _Path], return_quantization: bool = False,
                **limits: int) -> Union[np.ndarray, Tuple[np.ndarray, bool]]: ...
def write_tensor(file: IO[Any], tensor: np.ndarray, quantized: bool = False,
                 version: Tuple[int, int] = (1, 0)) -> None: ...
def format_version(version: Tuple[int, int]) -> str: ...
def format_extensions(extensions: Iterable[str]) -> str: ...
def format_argument(value: Any) -> str: ...
def format_result(value: Any) -> str: ...
def format_shapes(result: Any, tensors: Mapping[str, Tensor]) -> str: ...
def format_invocation(name: str, attribs: Mapping[str, Any], inputs: Sequence[Any], outputs: Optional[Sequence[Any]] = None,
                      dtype: Optional[str] = None) -> str: ...
def format_graph(name: str, inputs: Sequence[str], outputs: Sequence[str], operations: Sequence[Operation],
                 tensors: Mapping[str, Tensor], annotate_shapes: bool = False) -> str: ...

class Session:
    def __init__(self, path: _Path, stdlib: Optional[str] = None, lowered: Optional[List[str]] = None,
                 **limits: int) -> None: ...
    def __enter__(self) -> "Session": ...
    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None: ...
    def __call__(self, *inputs: np.ndarray) -> Tuple[np.ndarray, ...]: ...

def validate(model: Optional[_Path] = None, text: Optional[str] = None, name: str = 'input',
             **limits: int) -> Validation: ...
def run(model: _Path, inputs: Union[Mapping[str, Any], Sequence[Any], None] = None, via: str = 'nnef',
        outputs: Optional[Sequence[str]] = None, random_weights: Optional[int] = None, quantization: bool = True,
        quant_like: str = 'spec', threads: int = 2, cycles: int = 1, profile: Optional[str] = None,
        bias_grid: Optional[str] = None, **limits: int) -> Dict[str, np.ndarray]: ...
def to_tosa(model: _Path, profile: Optional[str] = None, level: str = '8k', random_weights: Optional[int] = None,
            no_weights: bool = False, bias_grid: Optional[str] = None, **limits: int) -> str: ...
def to_vpu(model: _Path, profile: Optional[str] = None, target: Optional[_Path] = None, random_weights: Optional[int] = None,
           simulate: bool = False, bias_grid: Optional[str] = None, **limits: int) -> Any: ...
def draw(model: Union[_Path, Graph], path: _Path, format: Optional[str] = None, depth: int = 0,
         expand: Union[str, Sequence[str]] = (), expand_all: bool = False, shapes: bool = True, **limits: int) -> None: ...
