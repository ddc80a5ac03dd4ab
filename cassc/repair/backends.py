"""Where answers come from: llama.cpp in this process (the default), or an OpenAI-compatible server
(llama.cpp's `llama-server`, `python -m llama_cpp.server`) shared by a build farm. Both stream, so the
caller can show progress, and both stop reading once an answer is too long."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

from cassc.errors import ModelError
from cassc.repair.prompt import MAX_ANSWER_CHARS
from cassc.repair.registry import LocalModel, ServerModel, known_models
from cassc.repair.settings import RepairSettings

TokenCallback = Callable[[int], None]  # called with the number of tokens generated so far


@dataclass(frozen=True)
class Generation:
    text: str
    tokens: int  # tokens generated (a server: streamed pieces, one token each)
    seconds: float  # reading the prompt and generating, after the model was loaded
    prompt_seconds: float  # until the first token: reading the prompt
    load_seconds: float  # loading the model for this answer (0 once loaded, and for servers)
    truncated: bool  # cut off at MAX_ANSWER_CHARS

    @property
    def tokens_per_second(self) -> float:
        """Generation speed, the prompt's reading excluded."""
        generating = self.seconds - self.prompt_seconds
        return self.tokens / generating if generating > 0 else 0.0


class Backend(Protocol):
    name: str  # the model, as reports name it
    prompt_format: str
    identity: str  # changes whenever a different model would answer (repair cache key)

    def generate(self, prompt: str, max_tokens: int, on_token: TokenCallback) -> Generation: ...


CHAT_TEMPLATE_TOKENS = 64  # what a chat template adds around the one user message, at most
MIN_ANSWER_TOKENS = 32

# llama.cpp models stay loaded for the life of the process: one cassc may compile many files.
_LOADED: dict[tuple[str, int, int | None], Any] = {}


def _llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as error:
        raise ModelError("in-process model repair needs llama-cpp-python: pip install 'cassc[model]' "
                         "(or use a model server: --cassc-model http://HOST:PORT)") from error
    return llama_cpp


class LlamaCppBackend:
    def __init__(self, model: LocalModel, settings: RepairSettings) -> None:
        self.model = model
        self.name = model.name
        self.prompt_format = model.prompt_format
        self.identity = f"gguf:{model.sha256 or model.path}"
        self.context_length = min(settings.context_length, model.context_length or settings.context_length)
        self.threads = settings.threads

    def load(self) -> float:
        """Load the model unless this process already has; returns the seconds it took."""
        key = (str(self.model.path), self.context_length, self.threads)
        if key in _LOADED:
            return 0.0
        llama_cpp = _llama_cpp()
        started = time.monotonic()
        try:
            _LOADED[key] = llama_cpp.Llama(model_path=str(self.model.path), n_ctx=self.context_length,
                                           n_threads=self.threads, seed=0, verbose=False)
        except (ValueError, RuntimeError) as error:
            raise ModelError(f"llama.cpp cannot load {self.model.path}: {error}") from error
        return time.monotonic() - started

    def generate(self, prompt: str, max_tokens: int, on_token: TokenCallback) -> Generation:
        load_seconds = self.load()
        llama_cpp = _llama_cpp()
        llama = _LOADED[(str(self.model.path), self.context_length, self.threads)]
        # llama.cpp fails mid-answer once prompt and answer outgrow the context: bound the answer
        room = self.context_length - len(llama.tokenize(prompt.encode(), add_bos=True)) - CHAT_TEMPLATE_TOKENS
        if room < MIN_ANSWER_TOKENS:
            raise ModelError(f"{self.name}: the prompt fills its {self.context_length}-token context "
                             "(raise context_length in [repair] of config.toml)")
        started = time.monotonic()
        generated = 0
        first_token_at = started

        def count(input_ids: Any, scores: Any) -> Any:
            # llama-cpp-python's streaming re-decodes the whole answer per token (cubic on answers of
            # broken UTF-8); a logits processor sees each token at no cost, and may stop the answer
            nonlocal generated, first_token_at
            generated += 1
            if generated == 1:
                first_token_at = time.monotonic()
            on_token(generated)
            return scores

        try:
            completion = llama.create_chat_completion(
                messages=[{"role": "user", "content": prompt}], max_tokens=min(max_tokens, room), temperature=0.0,
                logits_processor=llama_cpp.LogitsProcessorList([count]))
        except (ValueError, RuntimeError) as error:  # "Requested tokens exceed context window", decode failures
            raise ModelError(f"{self.name}: {error}") from error
        text = completion["choices"][0]["message"]["content"] or ""
        truncated = len(text) > MAX_ANSWER_CHARS
        return Generation(text[:MAX_ANSWER_CHARS + 1], generated, time.monotonic() - started,
                          first_token_at - started, load_seconds, truncated)


class OpenAIServerBackend:
    """POST /v1/chat/completions with streaming; retried on connection errors, timeouts and 5xx."""

    def __init__(self, server: ServerModel, settings: RepairSettings) -> None:
        self.base = server.url.removesuffix("/v1")
        self.timeout = settings.server_timeout_s
        self.retries = settings.server_retries
        self.served = self._served_model()
        entry = known_models().get(self.served.removesuffix(".gguf"))
        self.name = f"{self.served} at {self.base}"
        self.prompt_format = entry.prompt_format if entry else "instruct"
        self.identity = f"server:{self.base}:{self.served}"

    def _request(self, path: str, body: dict[str, object] | None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, headers={"Content-Type": "application/json"})
        for attempt in range(self.retries + 1):
            try:
                return urllib.request.urlopen(request, timeout=self.timeout)
            except urllib.error.HTTPError as error:
                if error.code < 500 or attempt == self.retries:
                    raise ModelError(f"model server {self.base}{path}: HTTP {error.code} {error.reason}") from error
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                if attempt == self.retries:
                    reason = getattr(error, "reason", error)
                    raise ModelError(f"model server {self.base} does not answer ({reason}) after "
                                     f"{self.retries + 1} tries") from error
            time.sleep(min(2.0 ** attempt, 8.0))
        raise AssertionError("unreachable: the last try returns or raises")

    def _served_model(self) -> str:
        with self._request("/v1/models", None) as response:
            listing = json.load(response)
        models = listing.get("data") or []
        if not models:
            raise ModelError(f"model server {self.base} serves no model")
        return str(models[0]["id"])

    def generate(self, prompt: str, max_tokens: int, on_token: TokenCallback) -> Generation:
        started = first_token_at = time.monotonic()
        body = {"model": self.served, "messages": [{"role": "user", "content": prompt}],
                "max_tokens": max_tokens, "temperature": 0.0, "stream": True}
        parts: list[str] = []
        size = 0
        try:
            with self._request("/v1/chat/completions", body) as response:
                for piece in _server_events(response):
                    if not piece:  # the role announcement and the finish marker carry no text
                        continue
                    if not parts:
                        first_token_at = time.monotonic()
                    parts.append(piece)
                    size += len(piece)
                    on_token(len(parts))
                    if size > MAX_ANSWER_CHARS:  # closing the response stops the server's generation
                        break
        except (TimeoutError, ConnectionError, urllib.error.URLError) as error:
            raise ModelError(f"model server {self.base} stopped answering: {error}") from error
        return Generation("".join(parts), len(parts), time.monotonic() - started, first_token_at - started, 0.0,
                          size > MAX_ANSWER_CHARS)


def _server_events(response: Any) -> Iterator[str]:
    """The content pieces of a server-sent event stream (`data: {...}` lines, ended by `data: [DONE]`)."""
    for raw in response:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        payload = line[len("data:"):].strip()
        if payload == "[DONE]":
            return
        choices = json.loads(payload).get("choices") or [{}]
        yield choices[0].get("delta", {}).get("content") or ""


def backend_for(model: LocalModel | ServerModel, settings: RepairSettings) -> Backend:
    if isinstance(model, ServerModel):
        return OpenAIServerBackend(model, settings)
    return LlamaCppBackend(model, settings)
