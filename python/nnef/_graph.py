"""The Graph that parse_string, parse_file and load_graph return: an nnef.Graph (the namedtuple)
whose `tensors` dict and `operations` list are made from the library's graph when first asked
for, each at once, and are then the plain dict and list that NNEF-Tools' module gives (the same
objects on every access, so changes to them stay). A 100k-operation graph makes some 500k Python
objects (about 170 MiB); a caller that only infers shapes, or reads the tensors, makes only what
it touches. Once both are made, the library's graph is released.

Everything a tuple does goes through the made fields: indexing, iteration, unpacking, comparison,
len, `in`, `_asdict`; `_replace`, `_make`, copy and pickle give a plain Graph.
`graph.tensors_made` / `graph.operations_made` tell whether a field was made (infer_shapes uses
it: a graph whose fields were never made is the library's, unchanged)."""
import threading

from ._types import Graph

_making = threading.Lock()  # held while a field of a loaded graph is made


class LoadedGraph(Graph):
    """An nnef.Graph loaded by the library (see the module's docstring)."""

    def __new__(cls, source):
        # The tuple's own items: the cheap fields; tensors and operations are made on access.
        self = tuple.__new__(cls, (source.name, None, None, source.inputs, source.outputs))
        self.__dict__['_source'] = source
        return self

    # The made fields (each once, also when threads ask at the same time; the source is released
    # when both are made).
    def _field(self, field):
        with _making:
            d = self.__dict__
            value = d.get(field)
            if value is None:
                source = d['_source']
                value = source.tensors() if field == '_tensors' else source.operations()
                d[field] = value
                if '_tensors' in d and '_operations' in d:
                    source.release()
            return value

    @property
    def tensors(self):
        """dict name -> Tensor, made on first access."""
        value = self.__dict__.get('_tensors')
        return value if value is not None else self._field('_tensors')

    @property
    def operations(self):
        """list of Operation in topological order, made on first access."""
        value = self.__dict__.get('_operations')
        return value if value is not None else self._field('_operations')

    @property
    def tensors_made(self):
        return '_tensors' in self.__dict__

    @property
    def operations_made(self):
        return '_operations' in self.__dict__

    def _library(self):
        """The library's graph (LoadedGraph of nnef._nnef) while neither field was made, else None."""
        d = self.__dict__
        return None if '_tensors' in d or '_operations' in d else d['_source']

    def _items(self):
        return (self.name, self.tensors, self.operations, self.inputs, self.outputs)

    def __iter__(self):
        return iter(self._items())

    def __getitem__(self, index):
        return self._items()[index]

    def __contains__(self, value):
        return value in self._items()

    def count(self, value):
        return self._items().count(value)

    def index(self, value, *args):
        return self._items().index(value, *args)

    def __eq__(self, other):
        return self._items() == other

    def __ne__(self, other):
        return self._items() != other

    def __lt__(self, other):
        return self._items() < other

    def __le__(self, other):
        return self._items() <= other

    def __gt__(self, other):
        return self._items() > other

    def __ge__(self, other):
        return self._items() >= other

    def __hash__(self):
        return hash(self._items())

    def __add__(self, other):
        return self._items() + other

    def __radd__(self, other):
        return other + self._items()

    def __mul__(self, n):
        return self._items() * n

    __rmul__ = __mul__

    def __repr__(self):
        return repr(Graph(*self._items()))

    def __reduce__(self):
        return (Graph, self._items())

    def __getnewargs__(self):
        return self._items()

    def __copy__(self):
        return Graph(*self._items())

    def _asdict(self):
        return dict(zip(self._fields, self._items()))

    @classmethod
    def _make(cls, iterable):
        return Graph._make(iterable)

    def _replace(self, **fields):
        return Graph(*self._items())._replace(**fields)
