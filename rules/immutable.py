"""Cheap updates of the engines' immutable states.

The engines are pure: every input gives a new state and the old one stays valid (the session keeps it for undo and
`correct`). Two things made that expensive in a long match:

- `dataclasses.replace` inspects the class's fields on every call; `evolve` copies the instance dictionary instead.
- A match-long tuple (the shot log) copied on every shot costs time and memory in proportion to the match so far,
  for every state kept. `Log` is an append-only sequence that shares one list between the states of one line of
  play: appending to the newest state extends the list in place; appending to an older state (after an undo or a
  correction) copies only that state's prefix.

Both keep value semantics: a `Log` compares equal to another with the same items, and an evolved state is
indistinguishable from one made by `dataclasses.replace`.

Within one input, an engine may also work on a `draft`: a private copy of a state (or of one of its parts) that it
changes in place with `put` and hands back as the new state. Nothing else holds a draft, so the change is as safe as
`evolve`, and an input that is refused simply drops it. It saves rebuilding the state at every step of a shot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")
D = TypeVar("D")

_CHECKED: dict[type, bool] = {}  # class -> True when evolve may copy its instance dictionary


def evolve(obj: D, **changes: Any) -> D:
    """`dataclasses.replace(obj, **changes)` for the engines' plain frozen dataclasses, several times faster.

    Classes with a `__post_init__` (validation) or `__slots__` go through `dataclasses.replace` itself."""
    cls = obj.__class__
    plain = _CHECKED.get(cls)
    if plain is None:
        plain = _CHECKED[cls] = (
            dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and hasattr(obj, "__dict__")
        )
    if not plain:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    old = obj.__dict__
    d = old.copy()
    d.update(changes)
    if len(d) != len(old):  # a name that is not a field
        raise TypeError(f"{cls.__name__} has no field {sorted(changes.keys() - old.keys())[0]!r}")
    new = _new(cls)
    _setattr(new, "__dict__", d)
    return new


def draft(obj: D) -> D:
    """A private copy of a frozen dataclass, for `put` to change while one input is applied."""
    new = _new(obj.__class__)
    _setattr(new, "__dict__", obj.__dict__.copy())
    return new


def put(obj: D, **changes: Any) -> D:
    """Change a `draft` in place and return it. Never call it on an object that another state may hold."""
    d = obj.__dict__
    n = len(d)
    d.update(changes)
    if len(d) != n:
        raise TypeError(f"{obj.__class__.__name__} has no field {sorted(changes.keys() - set(list(d)[:n]))[0]!r}")
    return obj


_new = object.__new__
_setattr = object.__setattr__


def fast_init(cls: type[D]) -> type[D]:
    """Give a frozen dataclass an `__init__` that sets the instance dictionary in one step.

    The `__init__` that `dataclass(frozen=True)` writes sets each field through `object.__setattr__`, one call per
    field; an engine builds a few such objects per shot. This one takes the same arguments and gives an equal
    object. Only for classes with no `__post_init__`, no default factory and no keyword-only or init=False field."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if hasattr(cls, "__post_init__") or any(
        f.default_factory is not dataclasses.MISSING or f.kw_only or not f.init for f in fields
    ):
        raise TypeError(f"fast_init does not handle {cls.__name__}")
    names: dict[str, Any] = {"_setattr": _setattr}
    params = []
    for f in fields:
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            names[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    values = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
    exec(f"def __init__(self, {', '.join(params)}):\n    _setattr(self, '__dict__', {{{values}}})", names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


class Log(Sequence[T], Generic[T]):
    """An immutable, append-only sequence whose `append` shares storage with the sequence it extends."""

    __slots__ = ("_items", "_n")

    def __init__(self, items: Sequence[T] = ()) -> None:
        self._items: list[T] = list(items)
        self._n = len(self._items)

    def append(self, item: T) -> Log[T]:
        """A new Log with `item` at the end; this one is unchanged."""
        new: Log[T] = Log.__new__(Log)
        if self._n == len(self._items):  # the newest state of its line of play: extend the shared list
            self._items.append(item)
            new._items = self._items
        else:  # an older state (an undo, a correction): a line of play of its own
            new._items = [*self._items[: self._n], item]
        new._n = self._n + 1
        return new

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: int | slice) -> T | tuple[T, ...]:
        if isinstance(i, slice):
            return tuple(self._items[: self._n][i])
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("log index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[T]:
        items, n = self._items, self._n
        for i in range(n):
            yield items[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Log):
            return self._n == other._n and (
                self._items is other._items or self._items[: self._n] == other._items[: other._n]
            )
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Log({list(self)!r})"
