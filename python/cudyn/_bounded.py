"""A dict that keeps at most ``limit`` entries: every cache cudyn keys by
shape, size, stream or text is one, so a program that meets ever new
shapes or sizes holds a bounded amount of memory for them (issue 41,
row 10).  The oldest entry goes first; a hit costs what dict.get costs."""


class Bounded(dict):
    """dict.get for lookups, put() to add (evicting the oldest entries past
    the limit); on_evict(key, value), when given, is called for each one
    that goes."""

    __slots__ = ("limit", "on_evict")

    def __init__(self, limit, on_evict=None):
        super().__init__()
        self.limit = limit
        self.on_evict = on_evict

    def put(self, key, value):
        """Stores value under key; returns value."""
        while len(self) >= self.limit and key not in self:
            oldest = next(iter(self))
            gone = self.pop(oldest)
            if self.on_evict is not None:
                self.on_evict(oldest, gone)
        self[key] = value
        return value
