"""Compiled selectors and their verdicts, shared by every allocator of a scheduler
(upstream's cel.Cache, plus a verdict cache upstream does not need).

Each expression is compiled once (the compiler memoizes per expression). cel-python takes
milliseconds per evaluation, so the verdict of an expression on a device is remembered too.
That is safe because slices are immutable objects: the key is the device object's identity,
and the entry keeps the object alive so that the identity cannot be reused by another
device. A changed slice is a new object, so its devices are evaluated afresh.

Behind the identity key, a verdict is also shared by devices with the same content: a
selector sees a device's driver, attributes, capacity values and allowMultipleAllocations
and nothing else (not its name, slice or node), so equal content gives an equal verdict. A
cluster of identical nodes (the same GPU model on every node) then evaluates each selector
once per kind of device instead of once per device.
"""

from __future__ import annotations

from collections.abc import Hashable

from ...api import Device
from ..cel import CompilationResult, Compiler, Features, SelectorEvalError, get_compiler
from ..cel import Device as CELDevice

__all__ = ["CELCache"]

_MAX_VERDICTS = 1 << 18


class CELCache:
    """Selector compilation and per-device verdicts for one CEL feature set."""

    def __init__(self, features: Features | None = None) -> None:
        self._features = features
        self._compiler: Compiler | None = None
        self._verdicts: dict[tuple[str, str, int], tuple[Device, bool | SelectorEvalError]] = {}
        self._devices: dict[tuple[str, int], tuple[Device, CELDevice]] = {}
        self._by_content: dict[tuple[str, Hashable], bool | SelectorEvalError] = {}
        self._combined: dict[tuple[Hashable, str, int], tuple[Device, bool]] = {}

    def compile(self, expression: str) -> CompilationResult:
        """GetOrCompile. The compiler (cel-python's lark parser, about half a CPU-second to
        build) is fetched at the first expression, not with the cache: every scheduler has a
        DynamicResources plugin, and most never see a CEL selector."""
        compiler = self._compiler
        if compiler is None:
            compiler = self._compiler = get_compiler(self._features)
        return compiler.compile(expression)

    def _cel_device(self, driver: str, device: Device) -> CELDevice:
        entry = self._devices.get((driver, id(device)))
        if entry is None or entry[0] is not device:
            cel_device = CELDevice(
                driver,
                device.attributes,
                {n: c.value for n, c in device.capacity.items()},
                device.allow_multiple_allocations,
            )
            entry = (device, cel_device)
            if len(self._devices) >= _MAX_VERDICTS:
                self._devices.clear()
            self._devices[(driver, id(device))] = entry
        return entry[1]

    def matches(self, compiled: CompilationResult, driver: str, device: Device) -> bool:
        """DeviceMatches of a compiled selector on one device of ``driver``; raises
        SelectorEvalError on a runtime error (remembered like a verdict)."""
        key = (compiled.expression, driver, id(device))
        entry = self._verdicts.get(key)
        if entry is None or entry[0] is not device:
            content = _content(compiled.expression, driver, device)
            verdict = self._by_content.get(content) if content is not None else None
            if verdict is None:
                try:
                    verdict = compiled.device_matches(self._cel_device(driver, device))
                except SelectorEvalError as exc:
                    verdict = exc
                if content is not None:
                    if len(self._by_content) >= _MAX_VERDICTS:
                        self._by_content.clear()
                    self._by_content[content] = verdict
            if len(self._verdicts) >= _MAX_VERDICTS:
                self._verdicts.clear()
            entry = (device, verdict)
            self._verdicts[key] = entry
        if isinstance(entry[1], SelectorEvalError):
            raise entry[1]
        return entry[1]


    def combined(self, selectors: Hashable, driver: str, device: Device) -> bool | None:
        """The verdict remembered by :meth:`remember_combined` for a group of selectors (the
        class's and the request's) on one device, None when there is none. The allocator
        asks a device's group of selectors once per search; a search per claim and node
        asks again for every device it passes, so this saves the per-selector steps."""
        entry = self._combined.get((selectors, driver, id(device)))
        if entry is None or entry[0] is not device:
            return None
        return entry[1]

    def remember_combined(self, selectors: Hashable, driver: str, device: Device, verdict: bool) -> None:
        """Keeps a group's verdict (errors are not kept: they end the search anyway)."""
        if len(self._combined) >= _MAX_VERDICTS:
            self._combined.clear()
        self._combined[(selectors, driver, id(device))] = (device, verdict)


def _content(expression: str, driver: str, device: Device) -> tuple[str, Hashable] | None:
    """What a selector can see of ``device`` (cel.Device's fields), as a key; None when an
    attribute value is not hashable (never for a parsed slice)."""
    key = (driver, tuple(device.attributes.items()),
           tuple((name, c.value) for name, c in device.capacity.items()),
           device.allow_multiple_allocations)
    try:
        hash(key)
    except TypeError:
        return None
    return expression, key
