// ops.js runs the device operations of adbkit (@devicefarmer/adbkit, the
// Node adb client of DeviceFarmer/STF) against one device of an adb server,
// for adb/adbtest's TestAdbkitClient. Usage:
//
//   node ops.js PORT SERIAL FORWARD_PORT
//
// It prints one JSON object per line, {"op": ..., "ok": bool, "value": ...,
// "error": ...}, and never starts an adb server of its own.
'use strict';

const crypto = require('crypto');
const { PassThrough, Readable } = require('stream');
const { Adb } = require('@devicefarmer/adbkit');

const [port, serial, forwardPort] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4])];
// bin: adbkit runs `<bin> -P PORT start-server` when it cannot connect;
// /bin/false makes that an error instead of a stray daemon.
const client = Adb.createClient({ host: '127.0.0.1', port, bin: '/bin/false' });
const device = client.getDevice(serial);

const opTimeoutMs = 15000;

function withTimeout(promise, what, ms = opTimeoutMs) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function run(op, fn, ms) {
  try {
    const value = await withTimeout(Promise.resolve().then(fn), op, ms);
    console.log(JSON.stringify({ op, ok: true, value }));
  } catch (err) {
    console.log(JSON.stringify({ op, ok: false, error: String(err && err.message ? err.message : err) }));
  }
}

function readAll(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function sha256(buf) {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

async function main() {
  await run('version', () => client.version());
  await run('listDevices', async () => (await client.listDevices()).map((d) => ({ id: d.id, type: d.type })));
  await run('getState', () => device.getState());
  await run('getSerialNo', () => device.getSerialNo());
  await run('getProperties', async () => {
    const p = await device.getProperties();
    return { model: p['ro.product.model'], sdk: p['ro.build.version.sdk'] };
  });
  await run('getFeatures', async () => Object.keys(await device.getFeatures()).length);
  await run('getPackages', async () => (await device.getPackages()).length);
  await run('shell', async () => (await readAll(await device.shell('echo hello from adbkit'))).toString());

  // 1 MiB of pseudo-random bytes: many sync DATA chunks, no pattern.
  const data = crypto.createHash('sha512').update('seed').digest();
  const big = Buffer.alloc(1 << 20);
  for (let i = 0; i < big.length; i += data.length) data.copy(big, i);
  for (let i = 0; i < big.length; i++) big[i] ^= (i * 31) & 0xff;
  const push = async (source, path) => {
    const transfer = await device.push(source, path, 0o644);
    await new Promise((resolve, reject) => {
      transfer.on('end', resolve);
      transfer.on('error', reject);
    });
    return big.length;
  };
  // adbkit sends what stream.read(65536) returns, else what stream.read()
  // returns: from a byte stream that is at most 64 KiB (SYNC_DATA_MAX).
  await run('push', () => {
    const source = new PassThrough();
    source.end(big);
    return push(source, '/sdcard/k.bin');
  });
  // From an object-mode stream (Readable.from) read() returns the whole
  // 1 MiB buffer, which adbkit sends as one DATA chunk; adbd refuses it.
  await run('pushObjectMode', () => push(Readable.from([big]), '/sdcard/k2.bin'));
  await run('pull', async () => {
    const got = await readAll(await device.pull('/sdcard/k.bin'));
    return { length: got.length, same: sha256(got) === sha256(big) };
  });
  await run('stat', async () => {
    const st = await device.stat('/sdcard/k.bin');
    return { size: st.size, isFile: st.isFile(), isDirectory: st.isDirectory(), mode: st.mode & 0o777 };
  });
  await run('statMissing', async () => {
    try {
      await device.stat('/sdcard/no-such-file');
      return 'no error';
    } catch (err) {
      return String(err.message || err);
    }
  });
  await run('readdir', async () => (await device.readdir('/sdcard')).map((e) => ({ name: e.name, size: e.size, isFile: e.isFile() })));
  await run('forward', async () => {
    await device.forward(`tcp:${forwardPort}`, 'tcp:8080');
    return device.listForwards();
  });
  await run('openLogcat', async () => {
    const reader = await device.openLogcat();
    try {
      const entry = await new Promise((resolve, reject) => {
        reader.once('entry', resolve);
        reader.once('error', reject);
        reader.once('end', () => reject(new Error('logcat ended without an entry')));
      });
      return { tag: entry.tag, priority: entry.priority, pid: entry.pid, message: entry.message };
    } finally {
      reader.end();
    }
  }, 5000); // a real phone sends the buffered entries at once
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
