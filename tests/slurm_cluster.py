"""A throw-away single-node SLURM cluster for tests (Debian/Ubuntu, root, no systemd).

Usage::

    from slurm_cluster import single_node_slurm, slurm_available

    ok, reason = slurm_available()          # installs slurm-wlm + munge if missing
    if not ok:
        pytest.skip(reason)
    with single_node_slurm(tmp_path) as cluster:
        subprocess.run(["sbatch", "--wrap", "hostname"], env=cluster.env, timeout=30)

What ``single_node_slurm`` does:

* creates a short private runtime directory under /tmp (unix socket paths are limited
  to 108 bytes, and munged insists on world-executable socket directories, so pytest's
  0700 tmp paths cannot be used for it),
* writes ``slurm.conf`` and ``gres.conf`` there and exports ``SLURM_CONF`` only in the
  environment it hands out (``cluster.env``); ``os.environ`` is never modified,
* puts small wrappers for the client commands (srun, sbatch, squeue, ...) first on
  ``cluster.env["PATH"]`` that set ``SLURM_CONF`` when it is missing: the slurm-jobstep
  plugin deletes all ``SLURM_*`` variables before it runs ``srun`` inside a job, and
  this cluster's config is not in /etc/slurm,
* starts its own ``munged`` (own key, own socket: a system munged is never touched),
  ``slurmctld`` and ``slurmd`` in the foreground as child processes (so their PIDs are
  known), on free TCP ports,
* waits (bounded) until ``sinfo`` reports the node ``idle`` and yields a
  :class:`SlurmCluster`,
* on exit cancels all jobs, stops slurmd, slurmctld and munged by PID (SIGTERM, then
  SIGKILL after a bounded wait), then kills by PID any leftover process that carries
  this cluster's marker variable in its environment (job steps, ``slurmstepd``), copies
  the config and daemon logs to ``<workdir>/slurm-logs`` and deletes the runtime dir.

The node is deliberately *fake-large* (``SlurmdParameters=config_overrides``): by
default it announces 16 CPUs (``cpus``; tests/test_slurm.py uses 4 so that the jobs do
not crowd a 2-core machine), 256 GB and 4 GPUs (GRES ``gpu`` backed by dummy character
devices in the runtime dir, clones of /dev/null) whatever the machine has, so the real
requests of heavy rules (``--gpus=1 --mem 8000``) are accepted and scheduled. There is
no GPU, no cgroup enforcement and no accounting (``sacct`` does not work: use
``slurm-status-command: squeue``, which the profile does).

Every wait is bounded; nothing here can hang for longer than the given timeouts.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SlurmCluster",
    "SlurmUnavailable",
    "slurm_available",
    "single_node_slurm",
    "MARKER_VAR",
]

#: binaries needed (client commands + daemons)
REQUIRED_BINARIES = (
    "munged",
    "mungekey",
    "slurmctld",
    "slurmd",
    "sbatch",
    "squeue",
    "sinfo",
    "scontrol",
    "scancel",
    "srun",
)
#: client commands that get a SLURM_CONF-restoring wrapper (see single_node_slurm)
CLIENT_TOOLS = (
    "srun",
    "sbatch",
    "squeue",
    "sinfo",
    "scontrol",
    "scancel",
    "sacct",
    "sacctmgr",
    "sshare",
    "sattach",
    "salloc",
    "sstat",
)
#: Debian packages providing them
APT_PACKAGES = ("slurm-wlm", "munge")
#: environment variable that tags every process belonging to one cluster instance
MARKER_VAR = "PHYSRES_TEST_SLURM_ID"

APT_UPDATE_TIMEOUT = 240
APT_INSTALL_TIMEOUT = 420


class SlurmUnavailable(RuntimeError):
    """SLURM cannot be started on this machine (not root, no apt, install failed...)."""


@dataclass
class SlurmCluster:
    """What ``single_node_slurm`` yields."""

    partition: str
    node: str
    cpus: int
    real_memory_mb: int
    gpus: int
    #: environment for every client command / snakemake run (has SLURM_CONF + marker)
    env: dict[str, str]
    slurm_conf: Path
    runtime_dir: Path
    log_dir: Path
    #: daemon name -> PID of the processes this context manager started
    pids: dict[str, int] = field(default_factory=dict)
    #: seconds from entering the context manager until the node was idle
    start_seconds: float = 0.0

    def run(self, *cmd: str, timeout: float = 30, check: bool = True) -> subprocess.CompletedProcess:
        """Run a SLURM client command against this cluster (bounded)."""
        return subprocess.run(
            list(cmd),
            env=self.env,
            cwd=self.runtime_dir,  # e.g. sbatch's default slurm-%j.out lands here
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def log_tail(self, lines: int = 40) -> str:
        out = []
        for f in sorted(self.log_dir.glob("*.log")):
            try:
                text = f.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                continue
            out.append(f"--- {f.name} (last {lines} lines) ---")
            out.extend(text)
        return "\n".join(out)


# --------------------------------------------------------------------------------------
# availability / installation
# --------------------------------------------------------------------------------------


def _missing_binaries() -> list[str]:
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return [b for b in REQUIRED_BINARIES if shutil.which(b, path=path) is None]


def _apt_install(timeout_update: float, timeout_install: float) -> tuple[bool, str]:
    """apt-get update && apt-get install slurm-wlm munge, bounded; never starts services."""
    if shutil.which("apt-get") is None:
        return False, "apt-get not found (not a Debian/Ubuntu machine)"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    # Keep the package scripts from starting system daemons (munge, slurmctld, slurmd)
    # that we would not own: a policy-rc.d that denies everything, only if none exists.
    policy = Path("/usr/sbin/policy-rc.d")
    created_policy = False
    try:
        if not policy.exists():
            policy.write_text("#!/bin/sh\n# temporary, from tests/slurm_cluster.py\nexit 101\n")
            policy.chmod(0o755)
            created_policy = True
        steps = [
            (["apt-get", "update", "-qq"], timeout_update),
            (
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *APT_PACKAGES],
                timeout_install,
            ),
        ]
        for cmd, tmo in steps:
            try:
                p = subprocess.run(
                    cmd,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=tmo,
                    stdin=subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired:
                return False, f"'{' '.join(cmd)}' took longer than {tmo:.0f} s"
            if p.returncode != 0:
                tail = (p.stderr or p.stdout).strip().splitlines()[-5:]
                return False, f"'{' '.join(cmd)}' failed (rc={p.returncode}): " + " | ".join(tail)
    finally:
        if created_policy:
            with contextlib.suppress(OSError):
                policy.unlink()
    return True, "installed " + " ".join(APT_PACKAGES)


@functools.cache
def slurm_available(install: bool = True) -> tuple[bool, str]:
    """Can a single-node SLURM be started here? Returns ``(ok, reason)``.

    Needs Linux and root (the daemons run as root, munged/slurmd need privileges).
    If binaries are missing and ``install`` is true, runs ``apt-get update`` and
    ``apt-get install slurm-wlm munge`` (bounded: see APT_*_TIMEOUT). The answer is
    cached for the life of the process.
    """
    if not sys.platform.startswith("linux"):
        return False, f"SLURM test cluster needs Linux (this is {sys.platform})"
    if os.geteuid() != 0:
        return False, "SLURM test cluster needs root (daemons and apt-get); not root"
    missing = _missing_binaries()
    how = "already installed"
    if missing:
        if not install:
            return False, "missing SLURM/munge binaries: " + ", ".join(missing)
        ok, how = _apt_install(APT_UPDATE_TIMEOUT, APT_INSTALL_TIMEOUT)
        if not ok:
            return False, "cannot install slurm-wlm/munge: " + how
        missing = _missing_binaries()
        if missing:
            return False, "still missing after apt-get install: " + ", ".join(missing)
    # (client commands such as `sinfo --version` already need a slurm.conf; slurmd -V not)
    try:
        v = subprocess.run(
            ["slurmd", "-V"],
            capture_output=True,
            text=True,
            timeout=15,
            env=dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"),
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"slurmd -V failed: {e}"
    if v.returncode != 0:
        return False, f"slurmd -V failed (rc={v.returncode}): {v.stderr.strip()}"
    return True, f"{v.stdout.strip()} ({how})"


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _fake_device(path: Path) -> None:
    """A character device like /dev/null (1,3) for a fake GPU; a plain file if mknod fails.

    slurmd logs "is not a valid character or block device" for plain files but still
    counts them; with task/none nothing ever opens the device.
    """
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:
        path.touch()


def _free_ports(n: int) -> list[int]:
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child is "alive" for kill(0); treat it as dead
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_dead(pid: int, proc: subprocess.Popen | None, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return True
        if proc is None and not _alive(pid):
            return True
        time.sleep(0.1)
    if proc is not None:
        return proc.poll() is not None
    return not _alive(pid)


def _terminate(pid: int, proc: subprocess.Popen | None, timeout: float) -> str:
    """SIGTERM, wait up to ``timeout``, then SIGKILL (and reap). Returns what happened."""
    if (proc is not None and proc.poll() is not None) or (proc is None and not _alive(pid)):
        return "already exited"
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if _wait_dead(pid, proc, timeout):
        return "stopped by SIGTERM"
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    _wait_dead(pid, proc, 5)
    return "killed by SIGKILL"


def _pids_with_marker(marker: str) -> list[int]:
    """PIDs whose environment has MARKER_VAR=marker (this cluster's jobs and steps)."""
    needle = f"{MARKER_VAR}={marker}".encode()
    me = os.getpid()
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        pid = int(d.name)
        if pid == me:
            continue
        try:
            env = (d / "environ").read_bytes()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            found.append(pid)
    return found


def _slurm_zombies() -> list[int]:
    """PIDs of zombie slurm*/munge* processes (already dead, only waiting to be reaped)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        comm, rest = stat.split("(", 1)[1].rsplit(")", 1)
        if rest.split()[0] == "Z" and comm.startswith(("slurm", "munge")):
            found.append(int(d.name))
    return found


# --------------------------------------------------------------------------------------
# the cluster
# --------------------------------------------------------------------------------------

SLURM_CONF_TEMPLATE = """\
# generated by tests/slurm_cluster.py -- throw-away single-node test cluster
ClusterName=physrestest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={rt}/state
SlurmdSpoolDir={rt}/spool
SlurmctldPidFile={rt}/run/slurmctld.pid
SlurmdPidFile={rt}/run/slurmd.pid
SlurmctldLogFile={rt}/log/slurmctld.log
SlurmdLogFile={rt}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups, no accounting
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none


JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
# scheduling
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# announce the node as configured below, not as detected (fake CPUs/memory/GPUs)
SlurmdParameters=config_overrides
ReturnToService=2
# finished jobs stay visible to squeue this long (the squeue status check needs it)
MinJobAge={min_job_age}
KillWait=5
InactiveLimit=0
SlurmdTimeout=300
GresTypes=gpu
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem} {gres}State=UNKNOWN
PartitionName={partition} Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""


@contextlib.contextmanager
def single_node_slurm(
    workdir: os.PathLike | None = None,
    *,
    partition: str = "debug",
    cpus: int = 16,
    real_memory_mb: int = 262144,
    gpus: int = 4,
    min_job_age: int = 600,
    start_timeout: float = 90.0,
    stop_timeout: float = 15.0,
) -> Iterator[SlurmCluster]:
    """Start munged + slurmctld + slurmd, yield a :class:`SlurmCluster`, stop them all.

    ``workdir`` (optional) receives a copy of slurm.conf and the daemon logs on exit
    (``<workdir>/slurm-logs``). Raises :class:`SlurmUnavailable` if SLURM cannot be
    installed/used here, ``RuntimeError`` (with daemon log tails) if the node does not
    become idle within ``start_timeout`` seconds. Daemons are always stopped, also when
    the start fails or the body raises.
    """
    ok, reason = slurm_available()
    if not ok:
        raise SlurmUnavailable(reason)

    t0 = time.monotonic()
    marker = uuid.uuid4().hex
    rt = Path(tempfile.mkdtemp(prefix="slurm-", dir="/tmp"))
    rt.chmod(0o755)  # munged: every directory above its socket must be world-executable
    for sub, mode in (
        ("state", 0o700),
        ("spool", 0o755),
        ("run", 0o755),
        ("log", 0o755),
        ("munge", 0o755),
        ("munge-key", 0o700),
    ):
        (rt / sub).mkdir(mode=mode)
        (rt / sub).chmod(mode)
    log_dir = rt / "log"
    munge_socket = rt / "munge" / "munge.socket"
    ctld_port, slurmd_port = _free_ports(2)
    host = socket.gethostname().split(".")[0]
    node = "localhost"

    conf = rt / "slurm.conf"
    conf.write_text(
        SLURM_CONF_TEMPLATE.format(
            host=host,
            ctld_port=ctld_port,
            slurmd_port=slurmd_port,
            munge_socket=munge_socket,
            rt=rt,
            min_job_age=min_job_age,
            node=node,
            cpus=cpus,
            mem=real_memory_mb,
            gres=f"Gres=gpu:{gpus} " if gpus else "",
            partition=partition,
        )
    )
    # Fake GPUs: slurmd insists on device files for gres/gpu (a bare Count= is reported
    # as 0 GPUs and the node is set INVALID), so point it at empty regular files. Without
    # cgroup device confinement nothing ever opens them.
    if gpus:
        fake = rt / "fakegpu"
        fake.mkdir()
        for i in range(gpus):
            _fake_device(fake / f"nvidia{i}")
        (rt / "gres.conf").write_text(f"NodeName={node} Name=gpu File={fake}/nvidia[0-{gpus - 1}]\n")
    else:
        (rt / "gres.conf").write_text("# no GRES\n")

    # Client wrappers first on PATH: the slurm-jobstep plugin (0.6.1) removes every
    # SLURM_* variable, SLURM_CONF included, before it calls `srun` inside the job; on a
    # real cluster srun then finds /etc/slurm/slurm.conf, here it would find nothing
    # ("fetch_config: DNS SRV lookup failed"). The wrappers restore SLURM_CONF if unset.
    wrap_dir = rt / "bin"
    wrap_dir.mkdir(mode=0o755)
    for tool in CLIENT_TOOLS:
        real = shutil.which(tool)
        if real:
            w = wrap_dir / tool
            w.write_text(
                "#!/bin/sh\n# tests/slurm_cluster.py: default SLURM_CONF to the test cluster\n"
                f': "${{SLURM_CONF:={conf}}}"\nexport SLURM_CONF\nexec {real} "$@"\n'
            )
            w.chmod(0o755)

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_", "SRUN_", "SQUEUE_"))}
    env["SLURM_CONF"] = str(conf)
    env[MARKER_VAR] = marker
    env["PATH"] = f"{wrap_dir}:" + env.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"

    procs: dict[str, subprocess.Popen] = {}
    cluster = SlurmCluster(
        partition=partition,
        node=node,
        cpus=cpus,
        real_memory_mb=real_memory_mb,
        gpus=gpus,
        env=env,
        slurm_conf=conf,
        runtime_dir=rt,
        log_dir=log_dir,
    )

    def start(name: str, cmd: list[str]) -> None:
        out = open(log_dir / f"{name}.stdout.log", "wb")
        try:
            p = subprocess.Popen(
                cmd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=rt,
            )
        finally:
            out.close()
        procs[name] = p
        cluster.pids[name] = p.pid

    def check_running() -> None:
        for name, p in procs.items():
            if p.poll() is not None:
                raise RuntimeError(f"{name} exited early (rc={p.returncode})\n{cluster.log_tail()}")

    def wait_for(what: str, cond, deadline: float) -> None:
        while True:
            check_running()
            if cond():
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out after {start_timeout:.0f} s waiting for {what}\n{cluster.log_tail()}")
            time.sleep(0.25)

    def client(*cmd: str, timeout: float = 10) -> subprocess.CompletedProcess | None:
        try:
            return subprocess.run(list(cmd), env=env, capture_output=True, text=True, timeout=timeout)
        except (subprocess.TimeoutExpired, OSError):
            return None

    def node_state() -> str:
        r = client("sinfo", "-h", "-n", node, "-o", "%t")
        return r.stdout.strip() if r is not None and r.returncode == 0 else ""

    try:
        deadline = t0 + start_timeout
        # --- munge: own key, own socket, foreground so that Popen's PID is the daemon
        subprocess.run(
            ["mungekey", "--create", "--keyfile", str(rt / "munge-key" / "munge.key")],
            check=True,
            capture_output=True,
            timeout=30,
        )
        start(
            "munged",
            [
                "munged",
                "--foreground",
                "--force",
                f"--socket={munge_socket}",
                f"--key-file={rt / 'munge-key' / 'munge.key'}",
                f"--pid-file={rt / 'run' / 'munged.pid'}",
                f"--seed-file={rt / 'munge-key' / 'munged.seed'}",
                f"--log-file={log_dir / 'munged.log'}",
            ],
        )
        wait_for("munged socket", munge_socket.exists, deadline)
        # --- slurmctld (-D foreground, -c clear old state) and slurmd (-N node name)
        start("slurmctld", ["slurmctld", "-D", "-c", "-f", str(conf)])
        wait_for("slurmctld", lambda: (r := client("scontrol", "ping")) is not None and "UP" in r.stdout, deadline)
        start("slurmd", ["slurmd", "-D", "-N", node, "-f", str(conf)])

        def node_idle() -> bool:
            st = node_state()
            # "inval"/"drain" never heal by themselves: fail now with the logs
            if st.startswith(("inval", "drain", "drng", "fail")):
                time.sleep(1)  # let slurmctld write its reason to the log
                raise RuntimeError(f"node {node} is '{st}'\n{cluster.log_tail()}")
            return st == "idle"

        wait_for(f"node {node} idle", node_idle, deadline)
        cluster.start_seconds = time.monotonic() - t0
        yield cluster
    finally:
        _shutdown(cluster, procs, marker, stop_timeout, workdir)


def _shutdown(
    cluster: SlurmCluster,
    procs: dict[str, subprocess.Popen],
    marker: str,
    stop_timeout: float,
    workdir: os.PathLike | None,
) -> None:
    env = cluster.env
    report = []
    # 1. cancel every job (only if slurmctld is still up), wait briefly for them to end
    ctld = procs.get("slurmctld")
    if ctld is not None and ctld.poll() is None:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            r = subprocess.run(["squeue", "-h", "-o", "%i"], env=env, capture_output=True, text=True, timeout=10)
            ids = r.stdout.split()
            if ids:
                subprocess.run(["scancel", *ids], env=env, capture_output=True, timeout=10)
                deadline = time.monotonic() + stop_timeout
                while time.monotonic() < deadline:
                    r = subprocess.run(
                        ["squeue", "-h", "-t", "PD,R,CG,S", "-o", "%i"],
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=10,
                    )
                    if not r.stdout.strip():
                        break
                    time.sleep(0.5)
    # 2. stop the daemons we started, by PID, in reverse order
    for name in ("slurmd", "slurmctld", "munged"):
        p = procs.get(name)
        if p is not None:
            report.append(f"{name} (pid {p.pid}): {_terminate(p.pid, p, stop_timeout)}")
    # 3. anything else of this cluster (slurmstepd, job processes): found by the marker
    #    variable in /proc/<pid>/environ, killed by PID
    for _ in range(3):
        leftovers = _pids_with_marker(marker)
        if not leftovers:
            break
        for pid in leftovers:
            report.append(f"leftover pid {pid}: {_terminate(pid, None, 3)}")
    # 4. slurmstepd double-forks, so finished steps are reparented to init, which may
    #    reap them a moment later: wait (bounded, nothing is killed here) until no such
    #    zombie is left, so that `ps` right after the tests shows nothing.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _slurm_zombies():
        time.sleep(0.2)
    # 5. keep config + logs for debugging, remove the runtime dir
    rt = cluster.runtime_dir
    with contextlib.suppress(OSError):
        (rt / "log" / "shutdown.log").write_text("\n".join(report) + "\n")
    if workdir is not None:
        dest = Path(workdir) / "slurm-logs"
        with contextlib.suppress(OSError):
            dest.mkdir(parents=True, exist_ok=True)
            for f in [rt / "slurm.conf", rt / "gres.conf", *sorted((rt / "log").glob("*"))]:
                if f.is_file():
                    shutil.copy2(f, dest / f.name)
    shutil.rmtree(rt, ignore_errors=True)


if __name__ == "__main__":  # manual smoke test: python tests/slurm_cluster.py
    ok, why = slurm_available()
    print("available:", ok, why)
    if ok:
        with single_node_slurm() as c:
            print(f"cluster up in {c.start_seconds:.1f} s, pids {c.pids}")
            print(c.run("sinfo").stdout)
            jid = c.run(
                "sbatch", "--parsable", "--gpus=1", "-o", "/dev/null", "--wrap", "hostname; sleep 1"
            ).stdout.strip()
            t = time.monotonic()
            while time.monotonic() - t < 30:
                st = c.run("squeue", "-h", "-t", "all", "-j", jid, "-o", "%T").stdout.strip()
                if st in ("COMPLETED", "FAILED", "CANCELLED"):
                    break
                time.sleep(0.5)
            print("job", jid, st)
        print("stopped.")
