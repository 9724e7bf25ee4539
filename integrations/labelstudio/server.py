"""A throwaway Label Studio server on localhost and a small client for its HTTP API.

`Server` starts `label-studio start` from a virtualenv on a free loopback port with a data
directory made by `tempfile.mkdtemp`, an admin user and a legacy API token of its own;
leaving the `with` block (normally, on an exception, or on SIGINT/SIGTERM/SIGHUP, which are
turned into SystemExit) stops the whole process group and removes the directory. Only the
standard library is used.
"""

import hashlib
import json
import os
import secrets
import shutil
import signal
import sys
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ADMIN = "admin@kcurate.test"
START_TIMEOUT_S = 240
TEMPLATE = "kcurate-db-template"
DB = "label_studio.sqlite3"


def free_port():
    """A loopback port nobody listens on now (Label Studio would move to the next free one
    if it were taken, so the health check below also proves it took this one)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(data_dir):
    env = dict(os.environ)
    env.update(
        {
            "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir),
            "HOME": str(data_dir),
            # Nothing leaves the machine: no usage or error reports, no version check.
            "COLLECT_ANALYTICS": "false",
            "SENTRY_DSN": "",
            "FRONTEND_SENTRY_DSN": "",
            "LATEST_VERSION_CHECK": "false",
        }
    )
    return env


def prepare_template(venv, log=print):
    """Migrates an empty database once per Label Studio version (kept in the user cache and
    copied into `TEMPLATE` inside each virtualenv): a fresh
    database takes Label Studio's few hundred migrations, minutes on a busy 2-core machine,
    and a copy of the migrated file lets each run start on a new data directory in seconds.
    It holds no user, organization or project (those are made by each run)."""
    template = Path(venv) / TEMPLATE
    if (template / DB).exists():
        return
    cached = _user_cache()
    if cached.exists():
        template.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, template / (DB + ".tmp"))
        os.replace(template / (DB + ".tmp"), template / DB)
        log(f"database template: copied from the user cache ({cached})")
        return
    work = Path(tempfile.mkdtemp(prefix="kcurate-labelstudio-template-"))
    try:
        t0 = time.monotonic()
        # `version` applies the migrations first, then prints versions and exits.
        p = subprocess.run(
            [str(Path(venv) / "bin" / "label-studio"), "version"],
            env=_env(work),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if p.returncode != 0 or not (work / DB).exists():
            raise RuntimeError(f"migrating the template database failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        template.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / DB, template / (DB + ".tmp"))
        os.replace(template / (DB + ".tmp"), template / DB)
        log(f"database template: migrated in {time.monotonic() - t0:.1f} s (kept in {cached} for later virtualenvs)")
        cached.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / DB, cached.with_suffix(".tmp"))
        os.replace(cached.with_suffix(".tmp"), cached)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _user_cache():
    """Where the migrated template is kept across virtualenvs and clones, as pip keeps its
    wheels: the user's cache directory, under a name that hashes the pinned requirements, so
    another Label Studio version migrates afresh."""
    pins = Path(__file__).with_name("requirements.txt").read_bytes()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kcurate" / f"labelstudio-db-{hashlib.sha256(pins).hexdigest()[:16]}.sqlite3"


def _raise_exit(signum, _frame):
    raise SystemExit(128 + signum)


class Server:
    """`with Server(venv) as api:` runs Label Studio for the block's duration."""

    def __init__(self, venv, log=print):
        self.venv = Path(venv)
        self.log = log
        self.proc = None
        self.dir = None
        self.server_log = None

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _raise_exit)
        self.dir = Path(tempfile.mkdtemp(prefix="kcurate-labelstudio-"))
        try:
            return self._start()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise

    def _start(self):
        template = self.venv / TEMPLATE / DB
        if template.exists():
            shutil.copyfile(template, self.dir / DB)
        token = secrets.token_hex(20)
        port = free_port()
        env = _env(self.dir)
        cmd = [
            str(self.venv / "bin" / "label-studio"),
            "start",
            "--no-browser",
            "--internal-host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(self.dir),
            "--username",
            ADMIN,
            "--password",
            secrets.token_hex(12),
            "--user-token",
            token,
            # The organization is created with legacy tokens on: `Authorization: Token T`
            # with the token given above, no JWT refresh dance.
            "--enable-legacy-api-token",
        ]
        self.server_log = open(self.dir / "server.log", "wb")
        self.proc = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.server_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        api = Api(f"http://127.0.0.1:{port}", token)
        t0 = time.monotonic()
        self._wait_healthy(api, t0)
        self.log(f"server: up on 127.0.0.1:{port} in {time.monotonic() - t0:.1f} s (data dir {self.dir})")
        return api

    def _wait_healthy(self, api, t0):
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"label-studio exited with {self.proc.returncode} before answering")
            try:
                api.get("/api/current-user/whoami")
                return
            except (OSError, ApiError):
                pass
            if time.monotonic() - t0 > START_TIMEOUT_S:
                raise RuntimeError(f"label-studio not up after {START_TIMEOUT_S} s")
            time.sleep(0.5)

    def tail(self, n=40):
        try:
            if self.server_log is not None:
                self.server_log.flush()
            lines = (self.dir / "server.log").read_text(errors="replace").splitlines()
            return "\n".join(lines[-n:])
        except OSError as e:
            return f"(no server log: {e})"

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None and exc_type is not SystemExit and self.proc is not None:
                self.log(f"server log (last lines):\n{self.tail()}")
            if self.proc is not None and self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait()
            self.log("server: stopped")
        finally:
            if self.server_log is not None:
                self.server_log.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            self.log(f"server: data dir removed ({not self.dir.exists()})")
        return False


class ApiError(Exception):
    """A request the server answered with an error status."""


class Api:
    """JSON over HTTP with `Authorization: Token <legacy token>`."""

    def __init__(self, base, token):
        self.base = base
        self.token = token

    def request(self, method, path, body=None, query=None, raw=False):
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Token {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                payload = r.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")[:2000]
            raise ApiError(f"{method} {path}: HTTP {e.code}: {detail}") from None
        if raw:
            return payload
        return json.loads(payload) if payload else None

    def get(self, path, **query):
        return self.request("GET", path, query=query)

    def post(self, path, body):
        return self.request("POST", path, body=body)

    def download(self, path, **query):
        return self.request("GET", path, query=query, raw=True)
