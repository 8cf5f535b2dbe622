"""weak_lru_cache / weak_cache: ``functools.lru_cache`` / ``functools.cache`` with freeing.

``lru_cache`` keeps one process-wide dict keyed by the arguments (``self`` included, on a method): every
module, parameter or tensor it ever saw stays alive, with the results computed from them. These
replacements are the same cache, with one difference: an argument that a dict finds by identity (``core``
decides: modules, parameters, tensors, plain objects, ``self``) is held weakly, and the entries that hold it
go when it is collected. Everything else is ``lru_cache``'s:

- One cache per decorated function, shared by every call, functions and methods alike: ``self.f(n)`` and
  ``Class.f(self, n)`` are one entry; ``maxsize`` counts every call in one LRU order; ``cache_clear()``
  (through any instance or the class) empties it; ``cache_info()`` counts every hit and miss, also those of
  instances since collected. Keys are built as ``lru_cache`` builds them (keyword order, ``typed``, a lone
  ``int`` or ``str`` argument as itself, so ``f(1)`` and ``f(True)`` are two entries as there), results
  are not copied, exceptions are not cached (a miss is counted before the call, as ``lru_cache`` counts it).
- A method stays a function in the class: ``obj.f`` is a bound method (``inspect.ismethod``), its
  ``__wrapped__`` is the original function (``obj.f.__wrapped__(obj, n)`` works), nothing is stored on the
  instance (``vars(obj)``, ``dir(obj)``, ``copy``, ``deepcopy``, pickling and ``torch.save`` see what they
  saw), and a copy of an instance is a new object: it does not hit the original's entries.
- An argument held by equality is held as ``lru_cache`` holds it, strongly: a ``self`` whose class defines
  ``__eq__``/``__hash__`` shares entries with equal instances, as with ``lru_cache``, and is kept alive
  as long as its entries (freeing it would need a per-object cache, which would stop that sharing).
- Collected entries keep their place in a bounded cache until ``lru_cache`` would have evicted them (with
  their results freed at once), so which entries a bounded cache evicts, and so how often a side-effecting
  function runs, is what it was. ``cache_info().currsize`` counts live entries only.

Why one cache rather than one per instance: per-instance caches change ``maxsize``, ``cache_clear`` and
``cache_info``, and need a slot on the instance, which copies, pickles and ``vars`` then see. The price:
a hit is a Python function call that looks up the first argument's token by ``id``, then the entry. In an
unbounded cache the token holds its entries under the other arguments, in a plain dict, so a hit hashes
only those (one dict of ``(token, rest)`` keys measured 2.4x on a method where this measured 2.0x to 2.3x
with a dict subclass, whose ``[]`` costs a tenth of a hit more): 1.8x to 2.1x ``lru_cache``'s C hit on a
method and 1.4x to 1.6x on a function of a tensor (``benchmarks/bench_cache.py``, a shared machine; the
per-instance caches before, which broke the above, 1.7x to 2.0x on a method in the same runs). A bounded
cache keeps every key in its one LRU order, as ``lru_cache`` does, so its hits build the key.

torch.compile: the function carries ``_torchdynamo_inline`` (the original function), so dynamo traces the
original, as it does for ``lru_cache`` (whose cache it also bypasses); ``torch.export``, which runs the code,
hits as ``lru_cache`` does but never stores what it computes while tracing (fake tensors).

The one stale hit possible: an argument freed by the cyclic collector together with the cache itself,
which a ``__del__`` brings back (the collector then skips the removal callback), as in ``maps._Entry``.
"""
from __future__ import annotations

import functools
import sys
import threading
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable
from typing import Any, Optional

from .core import _weakly

__all__ = ["weak_cache", "weak_lru_cache", "weak_shared_cache", "weak_shared_lru_cache"]
CacheInfo = getattr(functools, "_CacheInfo", None) or namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"])
_KEYWORDS = object()  # separates positional from keyword arguments in a key, as ``lru_cache``'s mark does
_NO_ARGUMENT = object()  # the first argument of a call without one
_GHOST = object()  # the value of a bounded cache's entry whose argument was collected


class _Token(weakref.ref):
    """An argument held weakly in keys: one per live object and cache, hashed and compared by identity (a
    plain ``weakref.ref`` compares its referents with ``==``, which raises for tensors). ``keys`` are the
    keys in the cache's dict that hold it (None until one does: an empty set is 216 bytes), dropped when its
    object is collected. In an unbounded cache, ``results`` holds the entries of the calls whose only weakly
    held argument is it, passed first (a method's ``self``, a function's tensor): ``results[rest]`` is the
    entry ``lru_cache`` keys by ``(argument, *rest)``, so a hit hashes ``rest`` alone (no key ``(token,
    rest)`` to build and hash), and the entries go with the token. A plain dict: a subclass's ``[]`` looks
    up ``__getitem__`` by name, a tenth of a hit. So the census's mark (as on ``_Entries``) is on the token."""

    __slots__ = ("key_id", "keys", "results")
    _weakglobals_holds_while_its_keys_live = True
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


class _Entries(dict):
    """An unbounded cache's entries, key -> result. The census of flake8-weakglobals reads the mark below:
    an entry lives only while the objects its key holds weakly live, so what it holds is not a pin."""

    __slots__ = ()
    _weakglobals_holds_while_its_keys_live = True


class _LruEntries(OrderedDict):
    """A bounded cache's entries, least recently used first (``move_to_end`` and ``popitem`` are C)."""

    _weakglobals_holds_while_its_keys_live = True


class _State:
    """One cache's entries and tokens, held by its function; the removal callbacks hold it weakly, so that
    a cache that is no longer used is freed, tokens and all, by reference counting."""

    __slots__ = ("data", "tokens", "lock", "ghosts", "__weakref__")

    def __init__(self, bounded: bool) -> None:
        self.data: dict[Any, Any] = _LruEntries() if bounded else _Entries()
        self.tokens: dict[int, _Token] = {}  # id(argument) -> its token
        self.lock = threading.RLock()
        self.ghosts = 0  # entries of collected arguments kept for their place in the LRU order


def _tokens_in(key: Any) -> list[_Token]:
    """The tokens a key holds: keys are ``(first, rest, *keyword parts and types)``, or a bare int or str."""
    if type(key) is not tuple:
        return []
    return [part for part in (key[0], *key[1], *key[2:]) if type(part) is _Token]


def _compiling() -> bool:
    """Whether torch is tracing this call (found without importing torch); only asked on a miss. Compiling
    and exporting import ``torch._dynamo``: an eager program is answered without calling into torch."""
    if "torch._dynamo" not in sys.modules:
        return False
    is_compiling = getattr(getattr(sys.modules.get("torch"), "compiler", None), "is_compiling", None)
    return bool(is_compiling is not None and is_compiling())


def _forget(token: _Token, stateref: weakref.ref) -> None:
    """An argument was collected: drop its token, its results, and each entry that holds it (in a bounded
    cache the entry stays as a ghost, without its result, until the LRU order evicts it)."""
    state = stateref()
    if state is None:
        return
    with state.lock:
        if state.tokens.get(token.key_id) is token:
            del state.tokens[token.key_id]
        if token.results is not None:
            token.results.clear()
        data = state.data
        while token.keys:
            key = token.keys.pop()
            if key not in data:
                continue
            for other in _tokens_in(key):
                if other is not token:
                    other.keys.discard(key)
            if type(data) is _Entries:
                del data[key]
            elif data[key] is not _GHOST:
                data[key] = _GHOST  # keeps its place
                state.ghosts += 1


def _cached(function: Callable[..., Any], maxsize: Optional[int], typed: bool) -> Callable[..., Any]:
    """The cached function: a closure (locals are faster than attributes, and a function call than a
    ``__call__``; a function in a class body binds as a method)."""
    if maxsize == 0:
        return _uncached(function, typed)
    bounded = maxsize is not None
    state = _State(bounded)
    data, tokens, lock = state.data, state.tokens, state.lock
    token_or_argument = token_by_id = tokens.get  # ``token_or_argument(id(a), a)``: a's token, or ``a`` if it has none
    hits = misses = 0
    every_argument = typed  # whether keys may hold tokens beyond the first argument: then probes check each

    def forget(token: _Token, stateref: weakref.ref = weakref.ref(state)) -> None:
        _forget(token, stateref)

    def token_of(argument: Any) -> Any:
        """What a stored key holds for ``argument``: its token (made once) when it is held weakly."""
        if not _weakly(argument):
            return argument
        token = tokens.get(id(argument))
        if token is not None and token() is argument:
            return token
        with lock:  # two threads making the first token of one object make one
            token = tokens.get(id(argument))
            if token is None or token() is not argument:
                token = _Token(argument, forget)
                token.key_id = id(argument)
                token.keys, token.results = (set(), None) if bounded else (None, {})
                tokens[id(argument)] = token
        return token

    def probe(argument: Any) -> Any:
        return token_or_argument(id(argument), argument)

    def make_key(first: Any, rest: tuple, kwargs: dict, convert: Callable[[Any], Any]) -> Any:
        """``lru_cache``'s key, shaped ``(first, rest, ...)``: equal exactly when ``lru_cache``'s are."""
        if not kwargs and not typed:
            if not rest and (type(first) is int or type(first) is str):
                return first
            return (convert(first), tuple(map(convert, rest)))
        key = [convert(first), tuple(map(convert, rest))]
        if kwargs:
            key.append(_KEYWORDS)
            for name, value in kwargs.items():
                key += (name, convert(value))
        if typed:
            key += [type(value) for value in ((first, *rest) if first is not _NO_ARGUMENT else ())]
            key += [type(value) for value in kwargs.values()]
        return tuple(key)

    def call(first: Any = _NO_ARGUMENT, /, *rest: Any, **kwargs: Any) -> Any:
        """An unbounded cache's call: ``first``'s token holds the entries under the rest of the arguments."""
        nonlocal hits
        if kwargs or every_argument:
            entries, key = entries_of(make_key(first, rest, kwargs, probe))
        elif (token := token_by_id(id(first))) is not None:  # only an argument held weakly has a token
            try:  # the hit path: ``make_key`` and ``entries_of``, inlined
                value = token.results[rest]
            except KeyError:
                return compute(first, rest, kwargs)
            hits += 1
            return value
        elif rest or (type(first) is not int and type(first) is not str):
            entries, key = data, (first, rest)
        else:
            entries, key = data, first
        try:
            value = entries[key]  # an argument without the token it needs matches no key: a miss
        except KeyError:
            return compute(first, rest, kwargs)
        hits += 1
        return value

    def bounded_call(first: Any = _NO_ARGUMENT, /, *rest: Any, **kwargs: Any) -> Any:
        """A bounded cache's call: every key in one dict, in LRU order."""
        nonlocal hits
        if kwargs or every_argument:
            key = make_key(first, rest, kwargs, probe)
        elif rest or (type(first) is not int and type(first) is not str):
            key = (token_or_argument(id(first), first), rest)  # the hit path: ``make_key``, inlined
        else:
            key = first
        try:
            value = data[key]  # an argument without the token it needs matches no key: a miss
        except KeyError:
            return compute(first, rest, kwargs)
        try:
            data.move_to_end(key)  # type: ignore[attr-defined]  # now the most recently used
        except KeyError:  # evicted by another thread meanwhile
            pass
        hits += 1
        return value

    def entries_of(key: Any) -> tuple[dict, Any]:
        """Where a key's entry is: in an unbounded cache, a key ``(token, rest)`` whose rest holds no token
        is ``rest`` in the token's ``results``; every other key is itself in the cache's dict."""
        if not bounded and type(key) is tuple and len(key) == 2 and type(key[0]) is _Token:
            if not any(type(part) is _Token for part in key[1]):
                return key[0].results, key[1]
        return data, key

    def compute(first: Any, rest: tuple, kwargs: dict) -> Any:
        nonlocal misses, every_argument
        misses += 1
        value = function(*rest, **kwargs) if first is _NO_ARGUMENT else function(first, *rest, **kwargs)
        if _compiling():  # torch.export runs this with fake tensors: nothing of it is kept
            return value
        key = make_key(first, rest, kwargs, token_of)
        held = _tokens_in(key)
        with lock:
            if held and len(held) > (type(key[0]) is _Token):
                every_argument = True  # a token past the first argument: probes must make them too
            if maxsize is None:
                entries, slot = entries_of(key)
                if entries is data and key not in data:
                    for token in held:
                        if token.keys is None:
                            token.keys = set()
                        token.keys.add(key)
                entries[slot] = value  # one stored during the call is replaced, as by lru_cache's unbounded cache
                return value
            if key in data:  # stored during the call (recursion, another thread): kept, as lru_cache does
                return value
            data[key] = value
            for token in held:
                token.keys.add(key)
            while len(data) > maxsize:
                oldest, old = data.popitem(last=False)  # type: ignore[call-arg]
                if old is _GHOST:
                    state.ghosts -= 1
                for token in _tokens_in(oldest):
                    token.keys.discard(oldest)
        return value

    def cache_info() -> CacheInfo:
        with lock:
            under_tokens = 0 if bounded else sum(len(token.results) for token in tuple(tokens.values()))
            return CacheInfo(hits, misses, maxsize, len(data) - state.ghosts + under_tokens)

    def cache_clear() -> None:
        nonlocal hits, misses, every_argument
        with lock:
            for token in tokens.values():
                if token.keys is not None:
                    token.keys.clear()
                if token.results is not None:
                    token.results.clear()
            tokens.clear()
            data.clear()
            state.ghosts = hits = misses = 0
            every_argument = typed

    return _finished(bounded_call if bounded else call, function, cache_info, cache_clear, maxsize, typed, state)


def _uncached(function: Callable[..., Any], typed: bool) -> Callable[..., Any]:
    """``maxsize=0``: what ``lru_cache`` does then, count a miss and call; no key is built."""
    misses = 0

    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal misses
        misses += 1
        return function(*args, **kwargs)

    def cache_info() -> CacheInfo:
        return CacheInfo(0, misses, 0, 0)

    def cache_clear() -> None:
        nonlocal misses
        misses = 0

    return _finished(call, function, cache_info, cache_clear, 0, typed, None)


def _finished(
    call: Callable[..., Any],
    function: Callable[..., Any],
    cache_info: Callable[[], Any],
    cache_clear: Callable[[], None],
    maxsize: Optional[int],
    typed: bool,
    state: Optional[_State],
) -> Callable[..., Any]:
    """``lru_cache``'s surface on ``call``: the wrapped function's metadata, ``__wrapped__``, the cache methods."""
    functools.update_wrapper(call, function)
    call.cache_info = cache_info  # type: ignore[attr-defined]
    call.cache_clear = cache_clear  # type: ignore[attr-defined]
    call.cache_parameters = lambda: {"maxsize": maxsize, "typed": typed}  # type: ignore[attr-defined]
    call._torchdynamo_inline = function  # type: ignore[attr-defined]  # what dynamo traces instead of the cache
    call._weak_lru_cache = state  # type: ignore[attr-defined]  # the entries, for tests and debugging
    return call


def weak_lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
    """``functools.lru_cache`` that never keeps a module, parameter or tensor argument (or ``self``) alive.

    Used as ``@weak_lru_cache``, ``@weak_lru_cache()``, ``@weak_lru_cache(None)`` or
    ``@weak_lru_cache(maxsize=32, typed=True)``, as ``lru_cache`` is."""
    if callable(maxsize) and isinstance(typed, bool):  # @weak_lru_cache, without parentheses
        return _cached(maxsize, 128, typed)
    if isinstance(maxsize, int):
        maxsize = max(maxsize, 0)
    elif maxsize is not None:
        raise TypeError("Expected first argument to be an integer, a callable, or None")
    return functools.partial(_cached, maxsize=maxsize, typed=typed)


def weak_cache(function: Callable[..., Any]) -> Any:
    """``functools.cache`` (an unbounded cache) that never keeps a module, parameter or tensor argument alive."""
    return _cached(function, None, False)


# Earlier fixes wrote these for methods of long-lived objects cached on modules; every method now shares
# one cache with ``self`` held weakly, which is what they were.
weak_shared_lru_cache = weak_lru_cache
weak_shared_cache = weak_cache
