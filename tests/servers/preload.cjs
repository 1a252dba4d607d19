// A `node -r` preload for the test peers we start (server-everything, the conformance CLI's mock servers).
// Load it AFTER ../shared/scripts/loopback-only.cjs (which forces every listen() onto 127.0.0.1):
//
//   node -r ../shared/scripts/loopback-only.cjs -r tests/servers/preload.cjs <server>
//
// 1. listen() on an IP-literal host binds synchronously. Node resolves a host with an asynchronous
//    dns.lookup() even for "127.0.0.1", so server.address() is null right after listen(); the conformance
//    mocks (`this.app.listen(0)` then `address().port`) crash on that. During listen() only, dns.lookup answers
//    IP literals synchronously.
// 2. Every TCP server must end up on loopback: otherwise this process exits with status 70.
// 3. TOOLWIRE_REPORT_LISTEN=1: the first TCP server prints "toolwire-listening <port>" on stderr (server-everything
//    logs PORT, which is "0" for an ephemeral port, not the port it got).
// 4. The process exits when its parent dies (its parent pid changes) or when TOOLWIRE_PARENT_PID is gone.
"use strict";
const net = require("net");
const dns = require("dns");

const innerListen = net.Server.prototype.listen;
let reported = false;

net.Server.prototype.listen = function listen(...args) {
  this.once("listening", () => {
    const addr = this.address();
    if (!addr || typeof addr !== "object") return; // a unix socket or pipe
    if (addr.address !== "127.0.0.1" && addr.address !== "::1") {
      process.stderr.write(`preload: refusing a server on ${addr.address}:${addr.port} (loopback only)\n`);
      process.exit(70);
    }
    if (!reported && process.env.TOOLWIRE_REPORT_LISTEN === "1") {
      reported = true;
      process.stderr.write(`toolwire-listening ${addr.port}\n`);
    }
  });
  const lookup = dns.lookup;
  dns.lookup = function syncIpLookup(host, options, callback) {
    if (typeof options === "function") {
      callback = options;
      options = {};
    }
    const family = net.isIP(host);
    if (!family) return lookup.call(this, host, options, callback);
    if (options && typeof options === "object" && options.all) callback(null, [{ address: host, family }]);
    else callback(null, host, family);
    return {};
  };
  try {
    return innerListen.apply(this, args);
  } finally {
    dns.lookup = lookup;
  }
};

const parent = process.ppid;
const watched = Number(process.env.TOOLWIRE_PARENT_PID) || 0;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
  if (watched) {
    try {
      process.kill(watched, 0);
    } catch (e) {
      if (e.code === "ESRCH") process.exit(0);
    }
  }
}, 500).unref();
