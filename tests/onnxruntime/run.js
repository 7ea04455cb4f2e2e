// Runs an ONNX model in ONNX Runtime (onnxruntime-node) on float32 inputs and prints its outputs.
//   node run.js MODEL.onnx INPUTS.json
// INPUTS.json: [{"shape": [1, 2, 4, 4], "dtype": "float32", "file": "x.bin"}, ...], each file the
// raw little-endian values (float32, int64, int32 or bool as bytes), in the order of the model's
// inputs. Prints {"name": {"shape": [...], "data": [...]}}
// for every output, numbers as JSON (floats exactly: a float32 widened to double prints exactly).
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
  const [model, inputsFile] = process.argv.slice(2);
  const inputs = JSON.parse(fs.readFileSync(inputsFile, 'utf8'));
  const session = await ort.InferenceSession.create(model);
  const feeds = {};
  const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array};
  session.inputNames.forEach((name, i) => {
    const bytes = fs.readFileSync(path.resolve(path.dirname(inputsFile), inputs[i].file));
    const dtype = inputs[i].dtype || 'float32';
    const Array_ = arrays[dtype];
    const data = new Array_(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    feeds[name] = new ort.Tensor(dtype, data, inputs[i].shape);
  });
  const results = await session.run(feeds);
  const out = {};
  for (const name of session.outputNames)
    out[name] = {shape: results[name].dims, data: Array.from(results[name].data, Number)};
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  console.error(`run.js: ${e.message}`);
  process.exit(1);
});
