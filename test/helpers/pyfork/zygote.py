"""A fork server for the Python peers of the tests (test/helpers/python-fork.ts): it imports the Python MCP SDK once,
then forks a child per peer that launch.py asks for, so that each of the hundreds of peer processes a test run starts
does not import the SDK again (~0.5 s of CPU each on a two-core machine).

    python zygote.py SOCKET MODULE...

The child runs the peer's script as `python SCRIPT ARGS...` would (runpy, as __main__), with the launcher's arguments,
environment, working directory, and standard input, output and error (passed over the socket); the launcher exits
with the child's exit code, or by the child's signal. Only modules that read no environment variable when imported are
preloaded (the SDK reads its variables when it is called), so the environment the child is given is the one it sees.

Bounds: a child whose launcher is gone (ended by a signal that cannot be forwarded, SIGKILL) is killed with its
process group; the server ends when its parent (the test run) does, killing the children left.
"""
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time

sock_path = sys.argv[1]
for name in sys.argv[2:]:
    try:
        __import__(name)
    except Exception:  # not in this SDK version: a child that needs it imports it itself
        pass

parent = os.getppid()
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sock_path)
server.listen(64)
sel = selectors.DefaultSelector()
sel.register(server, selectors.EVENT_READ)
children = {}  # pid -> connection of its launcher
# SIGCHLD wakes the select below through this pair (a Python handler alone does not: select is retried).
wake_r, wake_w = socket.socketpair()
wake_w.setblocking(False)
sel.register(wake_r, selectors.EVENT_READ)


def read_request(conn):
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
    if len(data) < 4:
        raise OSError('short request')
    (n,) = struct.unpack('!I', data[:4])
    body = data[4:]
    while len(body) < n:
        more = conn.recv(n - len(body))
        if not more:
            raise OSError('request cut short')
        body += more
    return json.loads(body), fds


def run_child(req, fds):
    os.setpgid(0, 0)
    for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.set_wakeup_fd(-1)
    sel.close()
    server.close()
    wake_r.close()
    wake_w.close()
    for c in children.values():
        c.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(req['cwd'])
    os.environ.clear()
    os.environ.update(req['env'])
    script = req['argv'][0]
    sys.argv = list(req['argv'])
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    import random

    random.seed()
    code = 0
    try:
        import runpy

        runpy.run_path(script, run_name='__main__')
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else (print(e.code, file=sys.stderr) or 1))
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    # What the interpreter does at exit: wait for the threads that are not daemons, run the atexit functions, flush.
    try:
        import threading

        threading._shutdown()
    except Exception:
        pass
    try:
        import atexit

        atexit._run_exitfuncs()
    except Exception:
        pass
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except Exception:
            pass
    os._exit(code & 0xFF)


def reap():
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is None:
            continue
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 0
        try:
            conn.sendall(json.dumps({'code': code, 'signal': sig}).encode() + b'\n')
        except OSError:
            pass
        try:
            sel.unregister(conn)
        except (KeyError, ValueError):
            pass
        conn.close()


signal.signal(signal.SIGCHLD, lambda *_: None)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # ends the loop below: the children are killed, the socket removed
signal.set_wakeup_fd(wake_w.fileno())
try:
    while os.getppid() == parent:
        for key, _ in sel.select(timeout=0.5):
            if key.fileobj is wake_r:
                try:
                    wake_r.recv(4096)
                except OSError:
                    pass
            elif key.fileobj is server:
                conn, _ = server.accept()
                try:
                    req, fds = read_request(conn)
                except (OSError, ValueError):
                    conn.close()
                    continue
                for f in (sys.stdout, sys.stderr):
                    f.flush()
                pid = os.fork()
                if pid == 0:
                    run_child(req, fds)
                for fd in fds:
                    os.close(fd)
                children[pid] = conn
                sel.register(conn, selectors.EVENT_READ, pid)
                conn.sendall(struct.pack('!i', pid))
            else:
                # A launcher closed its end: it is gone, so is the child it started.
                try:
                    gone = not key.fileobj.recv(1)
                except OSError:
                    gone = True
                if gone:
                    sel.unregister(key.fileobj)
                if gone and key.data in children:
                    try:
                        os.killpg(key.data, signal.SIGKILL)
                    except OSError:
                        pass
        reap()
finally:
    for pid in list(children):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 2
    while children and time.monotonic() < deadline:
        reap()
        time.sleep(0.05)
    try:
        os.unlink(sock_path)
    except OSError:
        pass
