"""The compile stage's door to model repair. Every compile passes through it, so it imports nothing
heavy: the loop, the prompts and the model backends are imported only when a compile fails."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from cassc.cache import Cache

if TYPE_CHECKING:
    from cassc.hipify.tree import HipifiedUnit
    from cassc.repair.backends import Backend
    from cassc.repair.loop import RepairRecord
    from cassc.repair.settings import RepairSettings
    from cassc.stages import Attempt


@dataclass
class ModelRepairer:
    """stages.Repairer for one cassc process. Settings are read and the model chosen only when a
    compile fails, and the model is loaded once. `backend` is for callers that bring their own (a
    test's fixed answer)."""

    cache: Cache
    option_model: str | None = None  # --cassc-model
    verbose: bool = False  # -v: advice is repeated on every failure, not once per build directory
    settings: RepairSettings | None = None
    backend: Backend | None = None
    records: list[RepairRecord] = field(default_factory=list)

    def compile(self, unit: HipifiedUnit, attempt: Callable[[], Attempt], what: str) -> str:
        first = attempt()
        if first.returncode == 0:
            return first.reported(what)
        from cassc.repair.loop import repair_failed_compile

        return repair_failed_compile(self, unit, attempt, first, what)

    def configured(self) -> RepairSettings:
        if self.settings is None:
            from cassc.repair.settings import load_settings

            self.settings = load_settings(self.option_model)
        return self.settings

    def model(self) -> Backend:
        if self.backend is None:
            from cassc.repair.backends import backend_for
            from cassc.repair.registry import locate_model

            settings = self.configured()
            assert settings.model is not None, "a repair is attempted only with a model or a backend"
            self.backend = backend_for(locate_model(settings.model), settings)
        return self.backend
