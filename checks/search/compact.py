"""Visited states kept exactly in a few dozen bytes each: hash-consed tuples in byte arenas.

A search that keeps its states as objects spends about 500 bytes on each: every state has its own
tuples for what changed since its parent. `CompactStates` keeps them as bytes instead, and exactly
(no fingerprint can collide). Every tuple in a state (a record, a tuple of records, the state itself)
is stored once, as its type's tag and the codes of its fields: a field that is a tuple is coded by that
tuple's number in its slot's arena, any other value (a string, a number, a flag) by its number in a
table of constants. Codes are written at the narrowest width that holds them (1, 2, 4 or 8 bytes), so
that a state is about 20 bytes, and a record shared by many states is stored once. An arena finds a
byte string again by open addressing over 4-byte slots, so the search needs no dict of states.

It is generic: any state built of tuples (NamedTuples included) whose other values are hashable
constants, of at most `TYPES` tuple types. Each slot's two caches, dropped when they reach `CACHE`
entries, spare the work of coding a tuple met recently and of decoding one.
"""

from __future__ import annotations

from array import array
from typing import Any

__all__ = ["Blobs", "Arena", "CompactStates", "CACHE", "TYPES"]

CACHE = 1 << 10  # entries in a slot's cache before it is dropped: with some thirty slots, a megabyte or two
TYPES = 64  # tuple types a store tells apart: a tag shares its byte with the codes' width


class Blobs:
    """Byte strings appended one after another, read back by their number."""

    WIDE = 1 << 32  # past this many bytes of data, offsets take 8 bytes

    def __init__(self) -> None:
        self.data = bytearray()
        self.ends = array("I")  # where each string ends: 4 bytes each, 8 once the data passes 4 GiB

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, k: int) -> bytes:
        ends = self.ends
        return bytes(self.data[ends[k - 1] if k else 0:ends[k]])

    def append(self, blob: bytes) -> None:
        self.data += blob
        if len(self.data) >= self.WIDE and self.ends.typecode == "I":
            self.ends = array("q", self.ends)
        self.ends.append(len(self.data))


class Arena(Blobs):
    """Distinct byte strings, each stored once and numbered in the order first seen."""

    def __init__(self) -> None:
        super().__init__()
        self.slots = array("i", [-1]) * 1024  # the number of the string hashed there, or -1
        self.mask = 1023

    def _slot(self, blob: bytes) -> int:
        """The slot holding this string, or the empty slot where it belongs."""
        slots, mask, data, ends = self.slots, self.mask, self.data, self.ends
        j = hash(blob) & mask
        size = len(blob)
        while True:
            k = slots[j]
            if k < 0:
                return j
            end = ends[k]
            start = ends[k - 1] if k else 0
            if end - start == size and data[start:end] == blob:
                return j
            j = (j + 1) & mask

    def find(self, blob: bytes) -> int:
        """Its number, or -1."""
        return self.slots[self._slot(blob)]

    def intern(self, blob: bytes) -> int:
        """Its number, stored first if new (then the number is the count before)."""
        j = self._slot(blob)
        k = self.slots[j]
        if k >= 0:
            return k
        k = len(self.ends)
        self.append(blob)
        self.slots[j] = k
        if 3 * k > 2 * self.mask:
            self._grow()
        return k

    def _grow(self) -> None:
        slots = self.slots = array("i", [-1]) * (2 * len(self.slots))
        mask = self.mask = len(slots) - 1
        for k in range(len(self.ends)):  # each string is new to the table: no need to compare
            j = hash(self[k]) & mask
            while slots[j] >= 0:
                j = (j + 1) & mask
            slots[j] = k


_WIDTHS = ("B", "H", "I", "Q")  # the array type codes of a blob's codes: 1, 2, 4 or 8 bytes each


def _packed(tag: int, codes: list[int]) -> bytes:
    """A tag (a tuple's type's number) and codes as bytes: the tag's byte says the codes' width."""
    top = max(codes) if codes else 0
    width = 0 if top < 1 << 8 else 1 if top < 1 << 16 else 2 if top < 1 << 32 else 3
    return bytes((tag << 2 | width,)) + array(_WIDTHS[width], codes).tobytes()


class CompactStates:
    """The states of a search, exactly, in a few dozen bytes each: `add` a state under its key (the state
    itself, or its symmetry class's representative), then read it back by its number.

    Each field of a record type, and the items of the plain tuples found in a slot, is a slot: a slot has
    its own arena of tuples (so their numbers stay small), its own cache from values to codes and from
    codes to tuples. A field holds one type of value, as its annotation says, so values equal in Python
    but of other types (True and 1, a record and a plain tuple) never meet in one slot's cache."""

    def __init__(self) -> None:
        self.keys = Arena()  # each state's key, numbered as the search numbers states
        self.bodies: Blobs | None = None  # where a key differs from its state: every state, so numbered
        self.types: list[type] = []  # a tuple's tag is its type's number
        self.tags: dict[type, int] = {}
        self.constants: list[Any] = []  # code 2n + 1 is constants[n]
        self.constant_codes: dict[tuple[type, Any], int] = {}  # by type too: True and 1 are different
        # By slot (slot 0 is the states'): the tuples stored there (code 2n is arena entry n), the cache from
        # values to codes and its `get`, and the cache from codes to tuples.
        self.arenas: list[Arena] = []
        self.encoded: list[dict[Any, int]] = []
        self.getters: list[Any] = []
        self.decoded: list[dict[int, tuple]] = []
        self.field_slots: dict[type, list[int]] = {}  # a record type's fields' slots
        self.item_slots: dict[int, int] = {}  # the slot of the items of the plain tuples in a slot
        self._new_slot()

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: tuple) -> bool:
        return self.keys.find(self._blob(key, 0)) >= 0

    def add(self, key: tuple, state: tuple) -> bool:
        """Store the state if its key is new; was it?"""
        n = len(self.keys)
        if self.keys.intern(self._blob(key, 0)) < n:
            return False
        if key is not state and key != state and self.bodies is None:
            self.bodies = Blobs()  # from now on every state's own blob is kept beside the keys
            for k in range(n):
                self.bodies.append(self.keys[k])
        if self.bodies is not None:
            self.bodies.append(self._blob(state, 0))
        return True

    def __getitem__(self, i: int) -> tuple:
        return self._tuple((self.keys if self.bodies is None else self.bodies)[i], 0)

    def _new_slot(self) -> int:
        self.arenas.append(Arena())
        self.encoded.append({})
        self.getters.append(self.encoded[-1].get)
        self.decoded.append({})
        return len(self.arenas) - 1

    def _slots(self, cls: type, slot: int, size: int) -> list[int]:
        """The slots of the fields of a tuple of this type in this slot."""
        if cls is tuple:
            item = self.item_slots.get(slot)
            if item is None:
                item = self.item_slots[slot] = self._new_slot()
            return [item] * size
        slots = self.field_slots.get(cls)
        if slots is None:
            slots = self.field_slots[cls] = [self._new_slot() for _ in range(size)]
        return slots

    def _blob(self, value: tuple, slot: int) -> bytes:
        """The tuple as its type's tag and its fields' codes."""
        cls = type(value)
        tag = self.tags.get(cls)
        if tag is None:
            if len(self.types) == TYPES:
                raise ValueError(f"a compact store tells at most {TYPES} tuple types apart; {cls.__name__} is one more")
            tag = self.tags[cls] = len(self.types)
            self.types.append(cls)
        slots = self._slots(cls, slot, len(value))
        getters = self.getters
        codes = [getters[s](field) for s, field in zip(slots, value, strict=True)]  # the cached codes: most of them
        if None in codes:
            codes = [self._code(field, s) if c is None else c for c, s, field in zip(codes, slots, value, strict=True)]
        return _packed(tag, codes)

    def _code(self, value: Any, slot: int) -> int:
        """A tuple's code is twice its number in its slot's arena; a constant's, twice its number plus one."""
        if isinstance(value, tuple) and value:  # the empty tuple is a constant: it reads false from a cache
            code = 2 * self.arenas[slot].intern(self._blob(value, slot))
        else:
            key = (type(value), value)
            code = self.constant_codes.get(key)
            if code is None:
                code = self.constant_codes[key] = 2 * len(self.constants) + 1
                self.constants.append(value)
        cache = self.encoded[slot]
        if len(cache) >= CACHE:
            cache.clear()
        cache[value] = code
        return code

    def _tuple(self, blob: bytes, slot: int) -> tuple:
        cls, codes = self.types[blob[0] >> 2], array(_WIDTHS[blob[0] & 3], blob[1:])
        constants, decoded, value = self.constants, self.decoded, self._value
        fields = [constants[code >> 1] if code & 1 else decoded[s].get(code) or value(code, s)
                  for code, s in zip(codes, self._slots(cls, slot, len(codes)), strict=True)]
        return tuple(fields) if cls is tuple else tuple.__new__(cls, fields)

    def _value(self, code: int, slot: int) -> tuple:
        """The tuple with this code in this slot."""
        cache = self.decoded[slot]
        value = cache.get(code)
        if value is None:
            value = self._tuple(self.arenas[slot][code >> 1], slot)
            if len(cache) >= CACHE:
                cache.clear()
            cache[code] = value
        return value
