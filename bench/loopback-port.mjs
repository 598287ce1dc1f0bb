// Preload for the bench's `conformance` row (node --import bench/loopback-port.mjs server.js, with PORT=0): the
// server's listen(port) binds 127.0.0.1 (fixtures/servers/peers/loopback.mjs), and the port it got is printed as
// "listening <port>" on stderr, since a server told PORT=0 prints 0.
import net from 'node:net';
import '../fixtures/servers/peers/loopback.mjs';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const a = this.address();
    if (a && typeof a === 'object') process.stderr.write(`listening ${a.port}\n`);
  });
  return listen.apply(this, args);
};
