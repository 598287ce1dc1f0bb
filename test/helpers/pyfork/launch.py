"""Starts `python SCRIPT ARGS...` as a child of the fork server (zygote.py) listening at SOCKET, with
this process's arguments, environment, working directory and standard streams, and ends as the child does (its exit
code, or its signal). Signals this process gets are passed on to the child. When the server does not answer, or the
arguments are not a script's (an option such as -c), it runs the interpreter itself (exec) with them.

test/helpers/python-fork.ts writes this file after a line `SOCKET = "..."` and a #! line naming the interpreter
(with -S: the launcher needs no site packages), and makes it executable.
"""
import json
import os
import signal
import socket
import struct
import sys


def direct():
    os.execv(sys.executable, [sys.executable, *sys.argv[1:]])


path = globals().get('SOCKET')
if not path or len(sys.argv) < 2 or sys.argv[1].startswith('-'):
    direct()
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    body = json.dumps({'argv': sys.argv[1:], 'env': dict(os.environ), 'cwd': os.getcwd()}).encode()
    socket.send_fds(s, [struct.pack('!I', len(body)) + body], [0, 1, 2])
    pid_bytes = b''
    while len(pid_bytes) < 4:
        more = s.recv(4 - len(pid_bytes))
        if not more:
            raise OSError('no child')
        pid_bytes += more
except OSError:
    direct()
(child,) = struct.unpack('!i', pid_bytes)
# The child holds the streams now: this process keeps none open (a reader sees the child's end of output as the end).
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)


def forward(sig, _frame):
    try:
        os.kill(child, sig)
    except OSError:
        pass


for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(sig, forward)
line = b''
while not line.endswith(b'\n'):
    more = s.recv(256)
    if not more:
        break
    line += more
try:
    status = json.loads(line)
except ValueError:
    status = {'code': 1, 'signal': 0}
if status.get('signal'):
    signal.signal(status['signal'], signal.SIG_DFL)
    os.kill(os.getpid(), status['signal'])
sys.exit(status.get('code', 1))
