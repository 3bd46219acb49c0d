// ES-module face of the vendored @msgpack/msgpack UMD build
// (vendor/msgpack.min.js, loaded by a classic <script> in index.html, defines
// window.MessagePack). See client/web/build.sh.
const MP = globalThis.MessagePack;
if (!MP) throw new Error("vendor/msgpack.min.js is not loaded");
export const encode = (obj) => MP.encode(obj);
export const decode = (bytes) => MP.decode(bytes, { useBigInt64: false });
