// Where the model files are, for hosts that load them themselves (Embedder.load, or copying them
// to a web origin). engram-wasm finds this package on its own in Node.
const { join } = require("node:path");

exports.dir = __dirname;
exports.model = join(__dirname, "model.onnx");
exports.tokenizer = join(__dirname, "tokenizer.json");
