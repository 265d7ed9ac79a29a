"""The documented scale-out path end to end: ``ray start --head`` (token authentication on, bound to 127.0.0.1
only), then ``evenhand assess CONFIG --engine ray --ray-address 127.0.0.1:PORT`` in another process.

The cluster runs under a private HOME (its token in HOME/.ray/auth_token, where ``ray get-auth-token --generate``
puts it) and a private --temp-dir; it is stopped by signalling the ``ray start --block`` process this module
started, and any process left under that temp dir is ended by its id. Skipped when Ray is not installed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from evenhand.scorers import ray_join  # noqa: E402
from evenhand.scorers.ray_join import RayTokenError, check_cluster  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.subprocess, pytest.mark.timeout(300)]

BIN = Path(sys.executable).parent
START_TIMEOUT_S = 60.0


@dataclass
class Cluster:
    port: int
    home: Path
    temp: Path
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def env(self, **extra: str) -> dict[str, str]:
        """A driver's environment: the cluster's HOME (its token file), no Ray settings from this test process."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env |= {"HOME": str(self.home), "PYTHONPATH": str(Path(__file__).parents[1]), **extra}
        return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pids_under(folder: Path) -> list[int]:
    """Processes whose command line names ``folder`` (the cluster's temp dir): the ones this module started."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if str(folder) in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


def _listening_hosts(pids: list[int]) -> set[str]:
    """The local addresses of every listening TCP socket the processes ``pids`` hold (from /proc/net)."""
    inodes: set[str] = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    hosts = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A" or fields[9] not in inodes:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(fields[1].split(":")[0])
            # /proc writes each 32-bit word in host (little-endian) order
            words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            ip = ipaddress.ip_address(words)
            if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
                ip = ip.ipv4_mapped
            hosts.add(str(ip))
    return hosts


def _stop(process: subprocess.Popen[bytes], temp: Path) -> None:
    """End the cluster: SIGTERM to `ray start --block` (it stops its children), then whatever is left, by id."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    for pid in _pids_under(temp):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if not Path("/proc/net/tcp").exists() or shutil.which("ray", path=str(BIN)) is None:
        pytest.skip("needs Linux /proc and the ray CLI beside this Python")
    root = Path(tempfile.mkdtemp(prefix="rc", dir="/tmp"))  # short: Ray's socket paths must stay short
    home, temp, log = root / "home", root / "t", root / "ray-start.log"
    home.mkdir()
    cluster = Cluster(_free_port(), home, temp, log)
    # RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0: Ray keeps 127.0.0.1 as this node's address (and binds only there);
    # no drain on SIGTERM: Ray would otherwise wait up to 30 s at teardown for idle workers
    env = cluster.env(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0")
    # as docs/scale.md says: a token in ~/.ray/auth_token, then `ray start --head` finds it and requires it
    made = subprocess.run(
        [str(BIN / "ray"), "get-auth-token", "--generate"], env=env, capture_output=True, timeout=60, check=False
    )
    assert made.returncode == 0 and (home / ".ray" / "auth_token").is_file(), made.stderr.decode()[-2000:]
    command = [
        str(BIN / "ray"), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={cluster.port}",
        "--include-dashboard=false", "--num-cpus=1", f"--temp-dir={temp}", "--disable-usage-stats",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "Ray runtime started" not in log.read_text(errors="replace"):
            assert process.poll() is None, f"ray start exited {process.returncode}: {log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"ray start not up in {START_TIMEOUT_S:.0f} s: {log.read_text()}"
            time.sleep(0.2)
        yield cluster
    finally:
        _stop(process, temp)
        shutil.rmtree(root, ignore_errors=True)


def _config(tmp_path: Path) -> Path:
    rows = []
    replies = ["Thank you, your refund is on its way.", "Sorry, your card was declined, you idiot.", "Noted."]
    for pid, (female, male) in enumerate([("Write to Mrs. Lee.", "Write to Mr. Lee."), ("Thank her.", "Thank him.")]):
        for sample in range(2):
            rows.append({"prompt_id": pid, "prompt": female, "sample": sample, "response": replies[sample]})
            for k, (group, prompt) in enumerate((("female", female), ("male", male))):
                rows.append({"prompt_id": pid, "prompt": prompt, "attribute": "gender", "group": group,
                             "sample": sample, "response": replies[(pid + sample + k) % 3]})  # fmt: skip
    (tmp_path / "responses.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    config = tmp_path / "use-case.yaml"
    config.write_text(
        "version: 1\n"
        "use_case: {name: Ray cluster, task: text_generation, attributes: [gender]}\n"
        "responses: {path: responses.jsonl}\n"
        # the lexical toxicity scorer: the cluster and its token are checked here, and the MiniLM default would
        # load torch in every actor (minutes on 2 busy cores)
        "scoring: {embedder: false, toxicity: profanity-check}\n"
    )
    return config


def _evenhand(cluster: Cluster, args: list[str], **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "evenhand", *args], env=cluster.env(**env), capture_output=True, text=True, timeout=480
    )
    return done, time.perf_counter() - t


def test_assess_joins_a_loopback_ray_start_cluster_with_its_token(cluster: Cluster, tmp_path: Path) -> None:
    # the ray start log and every listening socket of the cluster: 127.0.0.1, no other interface
    assert "Local node IP: 127.0.0.1" in cluster.log.read_text()
    hosts = _listening_hosts(_pids_under(cluster.temp))
    assert hosts and all(ipaddress.ip_address(h).is_loopback for h in hosts), hosts
    # the documented command; the driver finds the token in ~/.ray/auth_token as the ray CLI does
    out = tmp_path / "out"
    done, _ = _evenhand(
        cluster, ["assess", str(_config(tmp_path)), "--engine", "ray", "--ray-address", cluster.address, "-o", str(out)]
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Authentication token is missing" not in done.stderr
    results = json.loads((out / "results.json").read_text())
    assert results["metrics"], "no metrics"
    token = (cluster.home / ".ray" / "auth_token").read_text().strip()
    assert token not in done.stdout + done.stderr + (out / "results.json").read_text()
    # what the cluster reports to a driver that joined it: nodes, GCS and the driver itself on 127.0.0.1
    report = (
        "import json, ray; from evenhand.scorers.ray_engine import RayEngine\n"
        f"engine = RayEngine(address={cluster.address!r}); engine.start()\n"
        "print(json.dumps({'nodes': [n['NodeManagerAddress'] for n in ray.nodes() if n['Alive']],"
        " 'gcs': ray.get_runtime_context().gcs_address, 'driver': ray.util.get_node_ip_address()}))\n"
        "engine.close()\n"
    )
    seen = subprocess.run(
        [sys.executable, "-c", report], env=cluster.env(), capture_output=True, text=True, timeout=60, check=False
    )
    assert seen.returncode == 0, seen.stderr[-3000:]
    reported = json.loads(seen.stdout.strip().splitlines()[-1])
    assert reported == {"nodes": ["127.0.0.1"], "gcs": cluster.address, "driver": "127.0.0.1"}, reported


def test_a_driver_without_the_token_fails_fast_with_one_line(cluster: Cluster, tmp_path: Path) -> None:
    empty_home = tmp_path / "home"
    empty_home.mkdir()
    args = ["assess", str(_config(tmp_path)), "--engine", "ray", "--ray-address", cluster.address, "-o", str(tmp_path)]
    done, seconds = _evenhand(cluster, args, HOME=str(empty_home))
    assert done.returncode == 2, done.stdout[-3000:] + done.stderr[-3000:]
    # one error line (a line before it may say where the responses come from), no traceback, no Ray retries
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    assert "requires an authentication token and none was found" in errors[0]
    assert "RAY_AUTH_TOKEN_PATH" in errors[0] and "~/.ray/auth_token" in errors[0]
    assert "Traceback" not in done.stderr and "Authentication token is missing" not in done.stderr
    assert seconds < 20, seconds  # the Python and Ray imports; Ray's own retries took 30 s more


def test_a_wrong_token_is_refused_at_once_and_never_shown(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    _isolate(monkeypatch, cluster.home)
    monkeypatch.setenv("RAY_AUTH_TOKEN", "not-the-cluster-token-4f1c")
    t = time.perf_counter()
    with pytest.raises(RayTokenError, match="refused the authentication token read from RAY_AUTH_TOKEN") as caught:
        check_cluster(cluster.address)
    assert time.perf_counter() - t < 5
    assert "4f1c" not in str(caught.value) and "\n" not in str(caught.value)
    monkeypatch.delenv("RAY_AUTH_TOKEN")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(cluster.home / "no-such-file"))
    with pytest.raises(RayTokenError, match="RAY_AUTH_TOKEN_PATH is set but file cannot be opened"):
        check_cluster(cluster.address)
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # the opt-out on this side only: the cluster still wants one
    with pytest.raises(RayTokenError, match="RAY_AUTH_MODE=disabled here"):
        check_cluster(cluster.address)


def test_nothing_listening_fails_at_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _isolate(monkeypatch, tmp_path)
    port = _free_port()
    t = time.perf_counter()
    with pytest.raises(ConnectionError, match=rf"nothing answers at .*:{port} \(connection refused\)"):
        check_cluster(f"127.0.0.1:{port}")
    assert time.perf_counter() - t < 5
    check_cluster("ray://127.0.0.1:1")  # Ray Client is not checked here (its own retries apply)
    check_cluster("local")


def _isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """This process as a fresh driver: no Ray auth settings, HOME=home; whatever check_cluster switches is undone."""
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", ray_join._LOOPBACK_SWITCH):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    constants = pytest.importorskip("ray._private.ray_constants")
    monkeypatch.setattr(constants, "ENABLE_RAY_CLUSTER", constants.ENABLE_RAY_CLUSTER)
