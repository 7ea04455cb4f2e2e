// Drives `qlint server` with the Language Server Protocol client library VS Code uses
// (vscode-languageserver-protocol over vscode-jsonrpc, pinned in package-lock.json and installed
// by scripts/setup), in a temporary workspace made of qlint's example models:
//   - initialize: the capabilities, and a request before initialize is refused;
//   - diagnostics on the Python source range, with rule id, docs link and hover;
//   - a model that changes on disk: announced by the client (didChangeWatchedFiles), and found
//     by the server's own polling;
//   - "ignore on this line"; "fix all" (source.fixAll.qlint) and code actions one by one, applied
//     to the Python source, the source saved, re-exported by the configured export command, and
//     checked clean;
//   - a corrupt model: a diagnostic on the model file, and the server goes on; a file torch.save
//     wrote: no model;
//   - a workspace folder removed: its diagnostics cleared;
//   - cancellation, malformed input, shutdown and exit (0 after shutdown, 1 without).
//
//   node server_test.js QLINT SOURCE_DIR BUILD_DIR
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const url = require('url');
const rpc = require('vscode-languageserver-protocol/node');
const client = require('./client');

const {uriOf, initialize, applyEdit} = client;

const [qlint, sourceDir, buildDir] = process.argv.slice(2);
const startServer = (args) => client.startServer(qlint, args);

function makeWorkspace() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'qlint-lsp-'));
  const exportCommand = client.exportSeedInto(sourceDir, ws);
  fs.writeFileSync(path.join(ws, '.qlint.toml'),
                   `export = ${JSON.stringify(exportCommand)}\nmodels = ["models"]\ninputs = ["inputs/s1_eq_one.pt"]\n`);
  fs.copyFileSync(path.join(buildDir, 'examples/clean/compare_zero.pt'), path.join(ws, 'models/changing.pt'));
  return ws;
}

async function codeActionsFor(server, uri, diagnostic) {
  return server.connection.sendRequest(rpc.CodeActionRequest.type, {
    textDocument: {uri},
    range: diagnostic.range,
    context: {diagnostics: [diagnostic], only: [rpc.CodeActionKind.QuickFix]},
  });
}

async function mainServerTest() {
  const ws = makeWorkspace();
  const python = path.join(ws, 's1_eq_one.py');
  const pythonUri = uriOf(python);
  const changing = path.join(ws, 'models/changing.pt');
  const server = startServer();

  // initialize
  const init = await initialize(server, ws);
  assert.strictEqual(init.serverInfo.name, 'qlint');
  assert.ok(init.capabilities.hoverProvider, 'hoverProvider');
  assert.ok(init.capabilities.codeActionProvider.codeActionKinds.includes('quickfix'));
  assert.strictEqual(init.capabilities.textDocumentSync.save.includeText, false);
  assert.strictEqual(init.capabilities.diagnosticProvider, undefined, 'pull diagnostics for a client that cannot pull');
  server.connection.sendNotification(rpc.InitializedNotification.type, {});

  // The findings of the model, on the Python source, with rule, docs link and evidence.
  const found = await server.waitFor(pythonUri, (d) => d.length > 0, 'the findings of s1_eq_one');
  const eq = found.find((d) => d.code === 'eq-nonzero-const');
  assert.ok(eq, `no eq-nonzero-const in ${JSON.stringify(found)}`);
  assert.deepStrictEqual(eq.range, {start: {line: 15, character: 15}, end: {line: 15, character: 34}});
  assert.strictEqual(eq.source, 'qlint');
  assert.match(eq.codeDescription.href, /^file:\/\/\/.*\/rules\/eq-nonzero-const\.md$/);
  assert.ok(fs.existsSync(url.fileURLToPath(eq.codeDescription.href)), eq.codeDescription.href);
  assert.ok(server.registrations.some((r) => r.method === 'workspace/didChangeWatchedFiles'),
            'the server registers for model file events');
  await server.waitFor(uriOf(changing), (d) => d.length === 0, 'a clean check of changing.pt');
  console.log(`ok - initialize, and ${found.length} findings on s1_eq_one.py`);

  // Hover: the rule's explanation, and the simulation on the configured inputs.
  const hover = await server.connection.sendRequest(rpc.HoverRequest.type,
                                                    {textDocument: {uri: pythonUri}, position: eq.range.start});
  assert.strictEqual(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /eq-nonzero-const/);
  assert.match(hover.contents.value, /What it finds/);
  assert.match(hover.contents.value, /scale|flip/i, 'simulation evidence in the hover');
  const nothing = await server.connection.sendRequest(rpc.HoverRequest.type,
                                                      {textDocument: {uri: pythonUri}, position: {line: 0, character: 0}});
  assert.strictEqual(nothing, null);
  console.log('ok - hover');

  // "Ignore on this line": a `# qlint: ignore[rule]` comment at the end of the finding's line.
  const ignore = (await codeActionsFor(server, pythonUri, eq)).find((a) => /ignore `eq-nonzero-const`/.test(a.title));
  assert.ok(ignore, 'no "ignore on this line" action');
  assert.strictEqual(ignore.kind, 'quickfix');
  assert.ok(!ignore.isPreferred, 'ignoring is never the preferred fix');
  const [comment] = ignore.edit.changes[pythonUri];
  const sourceLine = fs.readFileSync(path.join(ws, 's1_eq_one.py'), 'utf8').split('\n')[eq.range.start.line];
  assert.deepStrictEqual(comment.range.start, {line: eq.range.start.line, character: sourceLine.length});
  assert.strictEqual(comment.newText, '  # qlint: ignore[eq-nonzero-const]');
  console.log('ok - ignore on this line');

  // An unsafe fix (only the simulation on this model's inputs shows the compared values are 0
  // and 1) is offered as such: quickfix.unsafe, and its title says so.
  const zoo = path.join(ws, 'models/zoo');
  fs.mkdirSync(zoo);
  const zooInputs = path.join(buildDir, 'examples/inputs/zoo/channel_zeroed_in_place.pt');
  fs.writeFileSync(path.join(zoo, '.qlint.toml'), `inputs = [${JSON.stringify(zooInputs)}]\n`);
  fs.copyFileSync(path.join(buildDir, 'examples/zoo/channel_zeroed_in_place.pt'), path.join(zoo, 'channel_zeroed_in_place.pt'));
  const zooUri = uriOf(path.join(sourceDir, 'examples/zoo/channel_zeroed_in_place.py'));
  const zooFound = await server.waitFor(zooUri, (d) => d.some((x) => x.code === 'eq-nonzero-const'),
                                        'eq-nonzero-const in channel_zeroed_in_place');
  const unsafe = [];
  for (const d of zooFound) unsafe.push(...(await codeActionsFor(server, zooUri, d)).filter((a) => a.kind === 'quickfix.unsafe'));
  assert.ok(unsafe.length > 0, 'no unsafe quick fix offered for channel_zeroed_in_place');
  for (const a of unsafe) {
    assert.match(a.title, /unsafe/);
    assert.ok(!a.isPreferred, 'an unsafe fix is never the preferred one');
  }
  fs.rmSync(zoo, {recursive: true});
  await server.waitFor(zooUri, (d) => d.length === 0, 'the findings gone with the model');
  console.log(`ok - ${unsafe.length} unsafe fix(es) offered as quickfix.unsafe`);

  // A model changes: the client says so.
  const s2Uri = uriOf(path.join(sourceDir, 'examples/seed/s2_logical_not.py'));
  fs.copyFileSync(path.join(buildDir, 'examples/seed/s2_logical_not.pt'), changing);
  // The inputs (torch.save files, *.pt as well) lie outside the configured `models`: the
  // client's event for them is no model's, and gets no check (it would come first).
  const inputsUri = uriOf(path.join(ws, 'inputs/s1_eq_one.pt'));
  server.connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, {
    changes: [{uri: inputsUri, type: rpc.FileChangeType.Changed}, {uri: uriOf(changing), type: rpc.FileChangeType.Changed}],
  });
  await server.waitFor(s2Uri, (d) => d.some((x) => x.code === 'bool-arith'), 'bool-arith after the model changed');
  assert.ok(!server.diagnostics.has(inputsUri), 'a file outside `models` was checked');
  // ... and without a word from the client: the server's polling finds it.
  fs.copyFileSync(path.join(buildDir, 'examples/clean/compare_zero.pt'), changing);
  await server.waitFor(s2Uri, (d) => d.length === 0, 'the findings gone after the model changed back');
  console.log('ok - diagnostics follow a model that changes on disk');

  // Code actions one by one, applied to the Python source, which is saved: the server exports
  // and re-checks. One first, then "fix all", then one by one again until nothing is left.
  async function applyOneByOne(maxRounds) {
    let applied = 0;
    for (let round = 0; round < maxRounds; ++round) {
      const current = server.diagnostics.get(pythonUri);
      if (current.length === 0) break;
      let action = null;
      for (const d of current) {
        const actions = await codeActionsFor(server, pythonUri, d);
        for (const a of actions) {
          assert.ok(a.kind === 'quickfix' || a.kind === 'quickfix.unsafe', a.kind);
          assert.ok(a.diagnostics.length === 1 && a.diagnostics[0].code === d.code);
        }
        action = actions.find((a) => a.kind === 'quickfix' && a.isPreferred);
        if (action) break;
      }
      assert.ok(action, `no safe quick fix for ${JSON.stringify(current)}`);
      for (const uri of Object.keys(action.edit.changes)) assert.strictEqual(uri, pythonUri);
      applyEdit(action.edit);
      ++applied;
      const before = current;
      server.connection.sendNotification(rpc.DidSaveTextDocumentNotification.type, {textDocument: {uri: pythonUri}});
      await server.waitFor(pythonUri, (d) => d !== before, `a re-check after applying "${action.title}"`);
    }
    return applied;
  }

  // "Fix all" (source.fixAll.qlint, as editors ask on save): every safe fix of the file as one
  // edit, applied and saved; the re-export and re-check find nothing left. Then the source is
  // put back, for the fixes one by one.
  const pythonFile = path.join(ws, 's1_eq_one.py');
  const original = fs.readFileSync(pythonFile, 'utf8');
  const onFile = server.diagnostics.get(pythonUri);
  const sourceActions = await server.connection.sendRequest(rpc.CodeActionRequest.type, {
    textDocument: {uri: pythonUri},
    range: {start: {line: 0, character: 0}, end: {line: 0, character: 0}},
    context: {diagnostics: [], only: [rpc.CodeActionKind.SourceFixAll]},
  });
  assert.strictEqual(sourceActions.length, 1, JSON.stringify(sourceActions));
  const [fixAll] = sourceActions;
  assert.strictEqual(fixAll.kind, 'source.fixAll.qlint');
  assert.match(fixAll.title, /^qlint: fix all \(\d+ safe fix(es)?\)$/);
  applyEdit(fixAll.edit);
  server.connection.sendNotification(rpc.DidSaveTextDocumentNotification.type, {textDocument: {uri: pythonUri}});
  await server.waitFor(pythonUri, (d) => d.length === 0, 'nothing left after fix all');
  assert.ok(onFile.length > 1 && !/\(1 safe fix\)/.test(fixAll.title), `one edit for several fixes: ${fixAll.title}`);
  console.log(`ok - ${fixAll.title}: ${onFile.length} findings -> 0`);
  fs.writeFileSync(pythonFile, original);
  server.connection.sendNotification(rpc.DidSaveTextDocumentNotification.type, {textDocument: {uri: pythonUri}});
  await server.waitFor(pythonUri, (d) => d.length === onFile.length, 'the findings back with the original source');

  const applied = await applyOneByOne(6);
  assert.ok(applied > 0);
  console.log(`ok - ${applied} code actions applied one by one, re-exported on save, and checked clean`);
  assert.deepStrictEqual(server.diagnostics.get(pythonUri), [], 'the fixed model is clean');

  // A corrupt model: an error on the model file; the server carries on. A tensor file that
  // torch.save wrote beside the models (an input) is no model: nothing is published for it.
  const saved = path.join(ws, 'models/saved_input.pt');
  fs.copyFileSync(path.join(ws, 'inputs/s1_eq_one.pt'), saved);
  const broken = path.join(ws, 'models/broken.pt');
  fs.writeFileSync(broken, 'PK\x03\x04 this is not an archive');
  const [error] = await server.waitFor(uriOf(broken), (d) => d.length === 1, 'an error on the corrupt model');
  assert.strictEqual(error.severity, rpc.DiagnosticSeverity.Error);
  assert.match(error.message, /broken\.pt/);
  const truncated = path.join(ws, 'models/truncated.pt');
  const archive = fs.readFileSync(path.join(buildDir, 'examples/seed/s1_eq_one.pt'));
  fs.writeFileSync(truncated, archive.subarray(0, archive.length / 2));
  await server.waitFor(uriOf(truncated), (d) => d.length === 1 && d[0].severity === 1, 'an error on a truncated model');
  fs.unlinkSync(broken);
  await server.waitFor(uriOf(broken), (d) => d.length === 0, 'the error gone with the model');
  assert.ok(!server.diagnostics.has(uriOf(saved)), 'a file torch.save wrote was checked as a model');
  console.log('ok - corrupt models are errors on the model file; torch.save files are no models');

  // Cancelled requests are answered (with their result, or RequestCancelled), never dropped.
  const answers = await Promise.all([...Array(20).keys()].map(async () => {
    const source = new rpc.CancellationTokenSource();
    const request = server.connection.sendRequest(rpc.HoverRequest.type,
                                                  {textDocument: {uri: pythonUri}, position: {line: 0, character: 0}},
                                                  source.token);
    source.cancel();
    try {
      await request;
      return 'answered';
    } catch (e) {
      assert.strictEqual(e.code, rpc.LSPErrorCodes.RequestCancelled, e.message);
      return 'cancelled';
    }
  }));
  console.log(`ok - cancellation (${answers.filter((a) => a === 'cancelled').length} of 20 cancelled)`);

  // The workspace folder removed from the workspace: its diagnostics are cleared.
  server.connection.sendNotification(rpc.DidChangeWorkspaceFoldersNotification.type, {
    event: {added: [], removed: [{uri: uriOf(ws), name: 'ws'}]},
  });
  await server.waitFor(uriOf(truncated), (d) => d.length === 0, 'the diagnostics of a removed folder cleared');
  console.log('ok - a removed folder\'s diagnostics are cleared');

  // shutdown, then exit: code 0.
  assert.strictEqual(await server.connection.sendRequest(rpc.ShutdownRequest.type), null);
  server.connection.sendNotification(rpc.ExitNotification.type);
  assert.strictEqual(await server.exited, 0);
  console.log('ok - shutdown and exit');
  fs.rmSync(ws, {recursive: true, force: true});
}

// Malformed input, a request before initialize, and exit without shutdown.
async function protocolErrorsTest() {
  const server = startServer();
  server.child.stdin.write('this is not a header\r\n\r\n');
  server.child.stdin.write('Content-Length: 9\r\n\r\nnot json!');
  await assert.rejects(server.connection.sendRequest(rpc.HoverRequest.type,
                                                     {textDocument: {uri: 'file:///x.py'}, position: {line: 0, character: 0}}),
                       (e) => e.code === -32002);
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'qlint-lsp-'));
  const init = await initialize(server, ws);
  assert.ok(init.capabilities.hoverProvider);
  server.connection.sendNotification(rpc.ExitNotification.type);
  assert.strictEqual(await server.exited, 1);
  fs.rmSync(ws, {recursive: true, force: true});
  console.log('ok - malformed messages, a request before initialize, exit without shutdown');
}

async function main() {
  if (!fs.existsSync(qlint)) throw new Error(`no qlint binary at ${qlint}`);
  await protocolErrorsTest();
  await mainServerTest();
}

client.runMain(main);
