"""Joining a running Ray cluster (``ray start --head``): its authentication token, checked in a second, before
``ray.init``.

A Ray 2.60 cluster started with ``ray start`` requires a token when it found one at start (``~/.ray/auth_token``,
written by the first local ``ray.init``, or by ``ray get-auth-token --generate``) or when ``RAY_AUTH_MODE=token``.
``ray.init(address="auto")`` then sends the token it finds, but an explicit address (``HOST:6379``) sends none, and
a refused driver retries once a second for 30 s before it gives up. So, before ``ray.init``, :func:`check_cluster`
asks the cluster's GCS once, with a short deadline:

- it answers without a token: nothing changes;
- it wants a token: the token is read where the ``ray`` CLI reads it (Ray's own loader: ``RAY_AUTH_TOKEN``, else the
  file named by ``RAY_AUTH_TOKEN_PATH``, else ``~/.ray/auth_token``), tried, and token authentication is switched on
  for this process (``RAY_AUTH_MODE=token``, what Ray itself does for ``"auto"``);
- there is no token, or the cluster refuses it: :class:`RayTokenError`, one line that says how to supply it;
- nothing answers: :class:`ConnectionError` at once (the 30 s of retries are not worth waiting for).

A cluster bound to loopback only (started with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) is found at ``127.0.0.1``
although Ray rewrites that address to this machine's network address: see :func:`_keep_loopback`. The token never
reaches any message: they name where it was read from, never its value.
"""

from __future__ import annotations

import enum
import importlib
import ipaddress
import os
from pathlib import Path
from typing import Any

from evenhand.errors import InputError

__all__ = ["PROBE_TIMEOUT_S", "RayTokenError", "check_cluster"]

PROBE_TIMEOUT_S = 5.0  # a GCS answers in milliseconds; this only bounds a host that drops packets
# the first call every Ray driver makes to the GCS; an empty request is a valid one
_PROBE_METHOD = "/ray.rpc.NodeInfoGcsService/GetClusterId"
_HOW_TO_SUPPLY = (
    "copy the cluster's token (`ray get-auth-token` on its head node) to ~/.ray/auth_token here, or set "
    "RAY_AUTH_TOKEN_PATH to a file holding it, or RAY_AUTH_TOKEN to the token (see docs/scale.md)"
)
_LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray keeps 127.0.0.1 as this machine's address


class RayTokenError(InputError):
    """The cluster requires an authentication token that this process lacks or has wrong: a setting the user
    supplies (exit code 2 on the CLI), not a failure of the cluster."""


class _Answer(enum.Enum):
    ANSWERED = "answered"
    REFUSED = "refused the token"  # missing or incorrect, the GCS does not say which
    UNREACHABLE = "unreachable"


def _ask(target: str, token: str | None) -> tuple[_Answer, str]:
    """Ask the GCS at ``target`` (``host:port``) once, sending ``token`` if given; the answer and gRPC's words."""
    grpc: Any = importlib.import_module("grpc")  # a dependency of ray[client]
    # a proxy in the environment must not see the cluster's address or its token
    channel = grpc.insecure_channel(target, options=[("grpc.enable_http_proxy", 0)])
    try:
        call = channel.unary_unary(_PROBE_METHOD)  # raw bytes both ways: no generated protobuf code needed
        metadata = [("authorization", f"Bearer {token}")] if token else None
        try:
            call(b"", timeout=PROBE_TIMEOUT_S, metadata=metadata)
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.UNAUTHENTICATED:
                return _Answer.REFUSED, ""
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                detail = "connection refused" if "refused" in str(exc.details()).lower() else code.name.lower()
                return _Answer.UNREACHABLE, detail
            return _Answer.ANSWERED, ""  # any other error is Ray's to report, through ray.init
        return _Answer.ANSWERED, ""
    finally:
        channel.close()


def _split(address: str) -> tuple[str, str] | None:
    """``(host, port)`` of ``host:port`` or ``[v6]:port``, else None."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), port


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bootstrap_address(address: str) -> str | None:
    """The ``host:port`` that ``ray.init(address=...)`` will connect to (Ray resolves ``auto`` and rewrites a
    loopback host); None when this Ray cannot tell (then ``ray.init`` reports on its own)."""
    try:
        services = importlib.import_module("ray._private.services")
        resolved = services.canonicalize_bootstrap_address(address)
    except ConnectionError:
        raise  # "auto" and no running cluster: Ray's own one-line message
    except Exception:  # a private helper of another Ray version: skip the check rather than guess
        return None
    return resolved if isinstance(resolved, str) else None


def _keep_loopback(address: str, target: str) -> str:
    """The address to check: ``target`` (Ray's rewrite), or the loopback address the user gave when only that
    answers. Ray turns 127.0.0.1 into this machine's network address unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``
    was set before it was imported; a cluster started with that setting listens on 127.0.0.1 alone, so the driver
    needs the same setting to reach it (and to register as 127.0.0.1 next to it)."""
    given, resolved = _split(address), _split(target)
    if given is None or resolved is None or not _is_loopback(given[0]) or _is_loopback(resolved[0]):
        return target
    if _ask(target, None)[0] is not _Answer.UNREACHABLE:
        return target  # the cluster listens on the network address too (a plain `ray start --head`)
    literal = f"{given[0]}:{given[1]}"
    if _ask(literal, None)[0] is _Answer.UNREACHABLE:
        return target
    os.environ[_LOOPBACK_SWITCH] = "0"
    constants: Any = importlib.import_module("ray._private.ray_constants")
    constants.ENABLE_RAY_CLUSTER = False  # read at import from the variable above; services reads it at each call
    return literal


def _token_source() -> str:
    """Where Ray's loader reads the token from, in its order (for messages: never the token itself)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    if os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return f"RAY_AUTH_TOKEN_PATH={os.environ['RAY_AUTH_TOKEN_PATH']}"
    return str(Path.home() / ".ray" / "auth_token")


def _load_token(where: str) -> str:
    """The token Ray's own loader finds (as the ``ray`` CLI does), or :class:`RayTokenError`."""
    try:
        raylet = importlib.import_module("ray._raylet")
        loader = raylet.AuthenticationTokenLoader.instance()
    except (ImportError, AttributeError):
        raise RayTokenError(
            f"the Ray cluster at {where} requires an authentication token, which this Ray cannot send: install the "
            "cluster's Ray version"
        ) from None
    loader.reset_cache()  # the variables may have changed since Ray first looked
    try:
        token = str(loader.get_raw_token(ignore_auth_mode=True) or "")
    except Exception as exc:  # ray.exceptions.AuthenticationError: e.g. RAY_AUTH_TOKEN_PATH names no readable file
        reason = str(getattr(exc, "message", "") or "the token could not be read").rstrip(".")
        raise RayTokenError(
            f"the Ray cluster at {where} requires an authentication token: {reason}; {_HOW_TO_SUPPLY}"
        ) from None
    return token.strip()


def _enable_token_auth() -> None:
    """Send the token on every Ray call of this process (what ``ray.init`` does itself for ``address="auto"``)."""
    os.environ["RAY_AUTH_MODE"] = "token"
    try:
        raylet = importlib.import_module("ray._raylet")
        raylet.Config.initialize("")  # Ray's cached settings read RAY_AUTH_MODE again
        raylet.AuthenticationTokenLoader.instance().reset_cache()
    except (ImportError, AttributeError):
        pass


def check_cluster(address: str) -> None:
    """Before ``ray.init(address=address)``: make sure the cluster answers and accepts this process, switching on
    token authentication when the cluster requires it and a token is found; a local Ray (``None``, ``"local"``) and
    Ray Client (``ray://``) are not checked here."""
    if address in ("", "local") or address.startswith("ray://"):
        return
    target = _bootstrap_address(address)
    if target is None:
        return
    target = _keep_loopback(address, target)
    answer, detail = _ask(target, None)
    if answer is _Answer.UNREACHABLE:
        hint = ""
        given = _split(address)
        if given is not None and _is_loopback(given[0]) and not _is_loopback(target.rpartition(":")[0].strip("[]")):
            hint = f" (Ray rewrote {given[0]} to this machine's address; {_LOOPBACK_SWITCH}=0 keeps it)"
        raise ConnectionError(f"nothing answers at {target} ({detail}){hint}")
    if answer is _Answer.ANSWERED:
        return  # no token needed
    if os.environ.get("RAY_AUTH_MODE", "").strip().lower() == "disabled":
        raise RayTokenError(
            f"the Ray cluster at {target} requires an authentication token but RAY_AUTH_MODE=disabled here: unset "
            f"it and {_HOW_TO_SUPPLY}"
        )
    token = _load_token(target)
    if not token:
        raise RayTokenError(
            f"the Ray cluster at {target} requires an authentication token and none was found: {_HOW_TO_SUPPLY}"
        )
    if _ask(target, token)[0] is _Answer.REFUSED:
        raise RayTokenError(
            f"the Ray cluster at {target} refused the authentication token read from {_token_source()}: "
            f"{_HOW_TO_SUPPLY}"
        )
    _enable_token_auth()
