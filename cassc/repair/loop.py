"""The repair loop (entered from hook.ModelRepairer when a compile fails): a model rewrites the
smallest definition around the first error, and the unit is compiled again.

    errors ─► region (region.py) ─► prompt (prompt.py) ─► model (backends.py) ─► code block
      ▲                                                                            │
      └── recompile ◄── splice into cassc's mirror ◄── check (apply.py) ◄──────────┘

Attempts and wall time are bounded by the settings. A replacement that compiles, or that moves every
error out of its region, is accepted and cached by content hash (the same failure is then repaired
without asking the model again); any other is rejected, said why, and undone. When no repair leaves
the unit compiling, every mirrored file is restored and the compiler's original errors are reported,
as without a model. Model output only ever lands in the mirror under cassc's work directory and in
cassc's cache; it is never run.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from cassc import __version__, locations
from cassc.cache import Cache, digest
from cassc.errors import CompileError, ModelError

from cassc.hipify.tables import load_tables
from cassc.repair.apply import check_replacement, display_name, region_text, splice, unified_diff, user_lines
from cassc.repair.backends import Backend, Generation
from cassc.repair.prompt import MAX_ANSWER_CHARS, AnswerRejected, RepairRequest, parse_answer, repair_prompt
from cassc.repair.region import Region, top_level_regions
from cassc.source_tokens import tokenize

if TYPE_CHECKING:
    from cassc.hipify.tree import HipifiedUnit, MirroredFile
    from cassc.repair.hook import ModelRepairer
    from cassc.stages import Attempt

CUDA_PREFIXES = ("cuda", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn", "nvtx", "__nv")
_DIAGNOSTIC = re.compile(r"^(?P<file>[^\n:]+):(?P<line>[0-9]+):(?P<column>[0-9]+): "
                         r"(?P<severity>fatal error|error|warning|note|remark): (?P<message>[^\n]*)", re.MULTILINE)


@dataclass(frozen=True)
class Diagnostic:
    file: str  # as the compiler names it: the user's path from the mirror's #line header
    line: int
    column: int
    severity: str
    message: str
    text: str  # the diagnostic with its source excerpt, up to the next one


def parse_diagnostics(text: str) -> list[Diagnostic]:
    matches = list(_DIAGNOSTIC.finditer(text))
    diagnostics = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        diagnostics.append(Diagnostic(match["file"], int(match["line"]), int(match["column"]), match["severity"],
                                      match["message"], text[match.start():end]))
    return diagnostics


@dataclass(frozen=True)
class RepairRecord:
    """One model answer for one region: what it changed and what cassc did with it."""

    file: str
    first_line: int  # the region, in the user's line numbers
    last_line: int
    region: str
    model: str
    accepted: bool
    reason: str  # why it was rejected; "" when accepted
    diff: str
    tokens: int = 0
    seconds: float = 0.0
    prompt_seconds: float = 0.0
    load_seconds: float = 0.0
    from_cache: bool = False

    @property
    def tokens_per_second(self) -> float:
        generating = self.seconds - self.prompt_seconds
        return self.tokens / generating if generating > 0 else 0.0

    def summary(self) -> str:
        where = f"{self.file}:{self.first_line}-{self.last_line} ({self.region})"
        if self.from_cache:
            source = f"a cached repair by {self.model}"
        else:
            load = f", model load {self.load_seconds:.2f} s" if self.load_seconds else ""
            source = (f"{self.model}, {self.tokens} tokens in {self.seconds:.1f} s: "
                      f"prompt {self.prompt_seconds:.1f} s, {self.tokens_per_second:.1f} tokens/s{load}")
        if self.accepted:
            return f"model repair accepted for {where}: {source}"
        return f"model repair rejected for {where}: {self.reason} [{source}]"


@dataclass
class _Target:
    """The failing region of one mirrored file, as the loop works on it."""

    mirrored: MirroredFile
    name: str  # the user's file as diagnostics name it
    text: str  # the mirrored file now
    region: Region  # lines as indexes into the mirrored file (0 is the #line header)
    first_user_line: int
    last_user_line: int
    implicated: set[tuple[int, int]]  # (line in region from 1, column) of each error in it
    errors: str


@dataclass(frozen=True)
class _Answer:
    text: str  # the model's whole answer, or a cached replacement
    generation: Generation | None  # None: the replacement came from the repair cache
    key: str  # the repair cache key of this failure


def repair_failed_compile(repairer: ModelRepairer, unit: HipifiedUnit, attempt: Callable[[], Attempt],
                          first: Attempt, what: str) -> str:
    """What ModelRepairer.compile does once `first` failed: repair, or restore and report."""
    if repairer.configured().model is None and repairer.backend is None:
        sys.stderr.write(first.diagnostics)
        if repairer.verbose or _first_notice_here("no-repair-model"):
            _say("no repair model configured, so hipify's result stands (add a GGUF with `cassc model add`, "
                 "then --cassc-model NAME or CASSC_MODEL)")
        raise CompileError(f"{what} failed")
    originals = {f.mirrored: f.mirrored.read_bytes() for f in unit.files}
    earlier = len(repairer.records)
    try:
        fixed = _repair(repairer, unit, attempt, first)
        conclusion = "model repair did not fix this unit"
    except ModelError as error:
        fixed, conclusion = None, f"model repair unavailable: {error}"
    if fixed is not None:
        for record in repairer.records[earlier:]:
            if record.accepted:
                sys.stderr.write(record.diff)
        return fixed.reported(what)
    for path, data in originals.items():
        path.write_bytes(data)
    sys.stderr.write(first.diagnostics)
    _say(f"{conclusion}; the errors above are those of hipify's translation")
    raise CompileError(f"{what} failed")


def _repair(repairer: ModelRepairer, unit: HipifiedUnit, attempt: Callable[[], Attempt],
            failed: Attempt) -> Attempt | None:
    settings = repairer.configured()
    deadline = time.monotonic() + settings.time_limit_s
    answers: dict[str, list[str]] = {}  # per region text: the answers given so far
    feedback: dict[str, str] = {}  # per region text: why its last answer was rejected
    for _ in range(settings.max_attempts):
        if time.monotonic() > deadline:
            _say(f"model repair stopped: its {settings.time_limit_s:.0f} s are spent")
            return None
        target = _failing_target(unit, failed.diagnostics)
        if target is None:
            _say("model repair skipped: the errors are not in files cassc translated")
            return None
        code = _region_code(target)
        try:
            answer = _ask(repairer, target, code, feedback.get(code, ""), deadline)
        except _TimeUp:
            _say(f"model repair stopped: its {settings.time_limit_s:.0f} s ran out while the model answered")
            return None
        if answer.text in answers.get(code, ()):
            _say("model repair stopped: the model repeats an answer already rejected")
            return None
        answers.setdefault(code, []).append(answer.text)
        record, replacement = _check(repairer.model().name, target, answer)
        if replacement is not None:
            spliced = splice(target.text, target.region, replacement)
            target.mirrored.mirrored.write_text(spliced, errors="surrogateescape")
            result = attempt()
            still_inside = [d for d in parse_diagnostics(result.diagnostics) if d.severity in ("error", "fatal error")
                            and d.file == target.name and target.first_user_line <= d.line <= target.last_user_line]
            if result.returncode != 0 and (still_inside or _unattributed(result.diagnostics)):
                target.mirrored.mirrored.write_text(target.text, errors="surrogateescape")
                first_error = (still_inside or parse_diagnostics(result.diagnostics) or [None])[0]
                reason = "the recompile still fails" + (f": {first_error.message}" if first_error else "")
                record = _rejected(record, reason)
            else:
                _remember(repairer.cache, answer.key, replacement, record)
                failed = result
        repairer.records.append(record)
        feedback[code] = record.reason
        _say(record.summary())
        if record.accepted and failed.returncode == 0:
            return failed
    return None


def _ask(repairer: ModelRepairer, target: _Target, code: str, rejection: str, deadline: float) -> _Answer:
    """The model's answer for the target, or the replacement cached for this very failure.
    `rejection` says why the previous answer for this code was not used."""
    backend = repairer.model()
    key = digest("model-repair", __version__, backend.identity, code, target.errors)
    hit = repairer.cache.lookup(key)
    if hit is not None:
        return _Answer(hit.read_text("replacement"), None, key)
    prompt = repair_prompt(backend.prompt_format, _request(target, code, rejection))
    generation = _generate_with_progress(backend, prompt, repairer.configured().max_answer_tokens, deadline)
    return _Answer(generation.text, generation, key)


def _check(model: str, target: _Target, answer: _Answer) -> tuple[RepairRecord, str | None]:
    """The record of the answer, and the replacement when it may be compiled."""
    original = _region_code(target)
    generation = answer.generation
    record = RepairRecord(
        file=target.name, first_line=target.first_user_line, last_line=target.last_user_line,
        region=target.region.name, model=model, accepted=True, reason="", diff="",
        tokens=generation.tokens if generation else 0, seconds=generation.seconds if generation else 0.0,
        prompt_seconds=generation.prompt_seconds if generation else 0.0,
        load_seconds=generation.load_seconds if generation else 0.0, from_cache=generation is None)
    try:
        if generation is not None and generation.truncated:
            raise AnswerRejected(f"the answer grew past {MAX_ANSWER_CHARS} characters")
        replacement = answer.text if generation is None else parse_answer(answer.text)
        record = replace(record, diff=unified_diff(original, replacement, target.name, target.first_user_line))
        check_replacement(original, replacement, target.implicated)
    except AnswerRejected as error:
        return _rejected(record, str(error)), None
    return record, replacement


def _remember(cache: Cache, key: str, replacement: str, record: RepairRecord) -> None:
    if record.from_cache or not cache.enabled:
        return
    with tempfile.TemporaryDirectory(prefix="cassc-repair-") as scratch:
        path = Path(scratch) / "replacement"
        path.write_text(replacement)
        meta = {"model": record.model, "file": record.file, "diff": record.diff, "tokens": record.tokens,
                "tokens_per_second": record.tokens_per_second}
        cache.store(key, {"replacement": path}, meta)


def _rejected(record: RepairRecord, reason: str) -> RepairRecord:
    return replace(record, accepted=False, reason=reason)


def _first_notice_here(notice: str) -> bool:
    """True the first time `notice` is due in this build directory (the working directory): advice that
    is news once, not after every compile error a user makes. A marker in the data directory remembers it."""
    marker = locations.data_dir() / "notices" / f"{notice}-{digest(str(Path.cwd()))[:16]}"
    if marker.exists():
        return False
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass  # an unwritable data directory: the advice is repeated, never lost
    return True


def _say(message: str) -> None:
    print(f"cassc: {message}", file=sys.stderr)


def _unattributed(diagnostics: str) -> bool:
    """A failure with no error line at all (a crash, a link step): nothing shows the region is fine."""
    return not any(d.severity in ("error", "fatal error") for d in parse_diagnostics(diagnostics))


def _failing_target(unit: HipifiedUnit, diagnostics: str) -> _Target | None:
    files = {}
    for mirrored in unit.files:
        text = mirrored.mirrored.read_text(errors="surrogateescape")
        files[display_name(text)] = (mirrored, text)
    errors = [d for d in parse_diagnostics(diagnostics) if d.severity in ("error", "fatal error") and d.file in files]
    if not errors:
        return None
    name = errors[0].file
    mirrored, text = files[name]
    numbers = user_lines(text)
    index_of = {number: index for index, number in enumerate(numbers)}  # the last line with that number wins
    line = index_of.get(errors[0].line)
    if line is None:
        return None
    # regions of the mirrored text count lines from 1; as indexes the #line header is 0
    regions = [Region(r.first_line - 1, r.last_line - 1, r.name) for r in top_level_regions(text)]
    region = next((r for r in regions if r.contains(line)), None)
    if region is None:
        return None
    first_user, last_user = numbers[region.first_line], numbers[region.last_line]
    inside = [d for d in errors if d.file == name and d.line in index_of and region.contains(index_of[d.line])]
    implicated = {(index_of[d.line] - region.first_line + 1, d.column) for d in inside}
    return _Target(mirrored, name, text, region, first_user, last_user, implicated, "".join(d.text for d in inside))


def _region_code(target: _Target) -> str:
    return region_text(target.text, target.region)


def _request(target: _Target, code: str, rejection: str) -> RepairRequest:
    """The region and its errors, with the renames hipify applied in the user's text of the region
    and the CUDA-looking names it had none for."""
    original = target.mirrored.original.read_text(errors="surrogateescape").split("\n")
    user_region = "\n".join(original[target.first_user_line - 1:target.last_user_line])
    identifiers = load_tables().identifiers
    names = dict.fromkeys(t.text for t in tokenize(user_region) if t.kind == "identifier")
    renames = tuple((n, identifiers[n]) for n in names if n in identifiers)
    unmapped = tuple(n for n in names if n not in identifiers and n.startswith(CUDA_PREFIXES) and n in code)
    return RepairRequest(code, target.errors, renames, unmapped, rejection)


class _TimeUp(Exception):
    """Raised from the token callback: stops a generation that would outlast the repair's wall time."""


def _generate_with_progress(backend: Backend, prompt: str, max_tokens: int, deadline: float) -> Generation:
    """Generate while rich shows tokens and elapsed time on stderr (a terminal only)."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(SpinnerColumn(), TextColumn("cassc: model {task.description}"), TextColumn("{task.completed} tokens"),
                  TimeElapsedColumn(), console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(backend.name, total=None)

        def on_token(tokens: int) -> None:
            progress.update(task, completed=tokens)
            if time.monotonic() > deadline:
                raise _TimeUp

        return backend.generate(prompt, max_tokens, on_token)
