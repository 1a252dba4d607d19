// What every test server does when it runs as a program (not imported): say its port on stdout, stop on
// SIGTERM/SIGINT, and never outlive the process that started it nor its lifetime.

/**
 * `server`: a started server ({port, close()}); `name`: its name in messages and in the lifetime variable
 * (`<NAME>_MAX_LIFETIME_MS`, default one hour); `announce`: the line printed once it listens.
 */
export function runAsProgram(server, { name, announce }) {
  process.stdout.write(`${announce}\n`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // Exit with the parent: poll the parent pid (it changes when the process is re-parented).
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 500).unref();
  const lifetime = Number(process.env[`${name.toUpperCase()}_MAX_LIFETIME_MS`]) || 3_600_000;
  setTimeout(() => {
    process.stderr.write(`${name}: max lifetime ${lifetime} ms reached, exiting\n`);
    process.exit(0);
  }, lifetime).unref();
}
