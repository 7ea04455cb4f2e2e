// Drives `qlint server` with the client library VS Code uses (./client.js) through what a client
// chooses and what a workspace's configuration changes:
//   - pull diagnostics (textDocument/diagnostic, workspace/diagnostic), for a client that can
//     pull and be told to pull again: no diagnostics pushed, the server's refresh requests, full
//     and unchanged reports;
//   - work-done progress ($/progress) for a check that takes longer than 200 ms, with the
//     model's name, for a client that offers it, and none for one that does not;
//   - configuration: an edit of .qlint.toml found by polling, announced by the client
//     (didChangeWatchedFiles), and workspace/didChangeConfiguration, each re-checking the models;
//   - a model announced or touched but not changed: not loaded again (its last findings stand);
//     changed: checked;
//   - "ignore in this file": the rule added to the per-file-ignores of the configuration there
//     is, or of a new .qlint.toml for a client that can create files, and the finding gone.
//
//   node features_test.js QLINT SOURCE_DIR BUILD_DIR
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const rpc = require('vscode-languageserver-protocol/node');
const client = require('./client');

const {uriOf, initialize, applyEdit} = client;

const [qlint, sourceDir, buildDir] = process.argv.slice(2);
const s1Uri = uriOf(path.join(sourceDir, 'examples/seed/s1_eq_one.py'));

// A workspace of one seed model (S1: eq-nonzero-const, bool-arith) and its configuration.
function makeWorkspace(config = '') {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'qlint-lsp-features-'));
  fs.mkdirSync(path.join(ws, 'models'));
  fs.copyFileSync(path.join(buildDir, 'examples/seed/s1_eq_one.pt'), path.join(ws, 'models/s1_eq_one.pt'));
  fs.writeFileSync(path.join(ws, '.qlint.toml'), config);
  return ws;
}

const codes = (items) => items.map((d) => d.code).sort();

async function shutDown(server, ws) {
  await server.connection.sendRequest(rpc.ShutdownRequest.type);
  server.connection.sendNotification(rpc.ExitNotification.type);
  assert.strictEqual(await server.exited, 0);
  fs.rmSync(ws, {recursive: true, force: true});
}

// The $/progress of one token, in order: its create request first, then begin, then end.
function progressOf(events, token) {
  return events.filter((e) => (e.method === 'window/workDoneProgress/create' || e.method === '$/progress') &&
                              e.params.token === token);
}

async function pullAndProgressTest() {
  const ws = makeWorkspace();
  const server = client.startServer(qlint);
  const init = await initialize(server, ws, {
    textDocument: {diagnostic: {dynamicRegistration: false}},
    workspace: {diagnostics: {refreshSupport: true}},
    window: {workDoneProgress: true},
  });
  assert.deepStrictEqual(init.capabilities.diagnosticProvider,
                         {identifier: 'qlint', interFileDependencies: true, workspaceDiagnostics: true});
  server.connection.sendNotification(rpc.InitializedNotification.type, {});

  // The server says when to pull; a workspace pull then has S1's findings on its Python source.
  const refreshes = () => server.events.filter((e) => e.method === 'workspace/diagnostic/refresh').length;
  await server.until(() => (refreshes() > 0 ? true : undefined), 'a workspace/diagnostic/refresh request');
  const pulled = await server.connection.sendRequest(rpc.WorkspaceDiagnosticRequest.type,
                                                     {previousResultIds: []});
  const s1Report = pulled.items.find((item) => item.uri === s1Uri);
  assert.ok(s1Report, `no report of s1_eq_one.py in ${JSON.stringify(pulled)}`);
  assert.strictEqual(s1Report.kind, 'full');
  assert.strictEqual(s1Report.version, null);
  assert.ok(codes(s1Report.items).includes('eq-nonzero-const'), JSON.stringify(s1Report.items));
  assert.strictEqual(server.diagnostics.size, 0, 'diagnostics were pushed to a client that pulls');

  // A document pull: the same diagnostics; again with its result id: unchanged.
  const full = await server.connection.sendRequest(rpc.DocumentDiagnosticRequest.type, {textDocument: {uri: s1Uri}});
  assert.strictEqual(full.kind, 'full');
  assert.deepStrictEqual(full.items, s1Report.items);
  const again = await server.connection.sendRequest(rpc.DocumentDiagnosticRequest.type,
                                                    {textDocument: {uri: s1Uri}, previousResultId: full.resultId});
  assert.deepStrictEqual(again, {kind: 'unchanged', resultId: full.resultId});
  const workspaceAgain = await server.connection.sendRequest(rpc.WorkspaceDiagnosticRequest.type, {
    previousResultIds: [{uri: s1Uri, value: full.resultId}],
  });
  assert.strictEqual(workspaceAgain.items.find((item) => item.uri === s1Uri).kind, 'unchanged');
  const elsewhere = await server.connection.sendRequest(rpc.DocumentDiagnosticRequest.type,
                                                        {textDocument: {uri: uriOf(path.join(ws, 'other.py'))}});
  assert.deepStrictEqual(elsewhere.items, []);
  console.log(`ok - pull diagnostics: ${s1Report.items.length} findings pulled, full then unchanged, none pushed`);

  // The first check (LibTorch's start and the archive's load) takes longer than 200 ms: its
  // progress is created, begins with the model's name and ends.
  const begin = server.events.find((e) => e.method === '$/progress' && e.params.value.kind === 'begin');
  assert.ok(begin, `no $/progress begin in ${JSON.stringify(server.events)}`);
  assert.strictEqual(begin.params.value.title, 'qlint');
  assert.match(begin.params.value.message, /checking s1_eq_one\.pt/);
  const sequence = progressOf(server.events, begin.params.token);
  assert.deepStrictEqual(sequence.map((e) => e.params.value ? e.params.value.kind : e.method),
                         ['window/workDoneProgress/create', 'begin', 'end'],
                         JSON.stringify(sequence));
  console.log(`ok - work-done progress: "${begin.params.value.message}"`);

  // The model changes: another refresh, and the pull shows the change.
  const before = refreshes();
  fs.copyFileSync(path.join(buildDir, 'examples/clean/compare_zero.pt'), path.join(ws, 'models/s1_eq_one.pt'));
  await server.until(() => (refreshes() > before ? true : undefined), 'a refresh after the model changed');
  const cleared = await server.connection.sendRequest(rpc.DocumentDiagnosticRequest.type,
                                                      {textDocument: {uri: s1Uri}, previousResultId: full.resultId});
  assert.deepStrictEqual(cleared.items, [], JSON.stringify(cleared));
  assert.strictEqual(server.diagnostics.size, 0, 'diagnostics were pushed to a client that pulls');
  console.log('ok - a changed model: refresh, and the pull has the findings gone');
  await shutDown(server, ws);
}

// Also: the rule pages' address from the environment (a team's mirror of docs/rules).
async function noProgressWithoutCapabilityTest() {
  const ws = makeWorkspace();
  const server = client.startServer(qlint, [], 200, {QLINT_DOCS_URL: 'https://docs.example.org/qlint/rules'});
  await initialize(server, ws, {});
  server.connection.sendNotification(rpc.InitializedNotification.type, {});
  const found = await server.waitFor(s1Uri, (d) => d.length > 0, 'the findings of s1_eq_one');
  assert.deepStrictEqual(server.events, [], 'progress or refreshes for a client that offered neither');
  console.log('ok - no progress and no refresh for a client without the capabilities');
  for (const d of found)
    assert.strictEqual(d.codeDescription.href, `https://docs.example.org/qlint/rules/${d.code}.md`);
  console.log(`ok - rule pages linked at $QLINT_DOCS_URL: ${found[0].codeDescription.href}`);
  await shutDown(server, ws);
}

// Each way the configuration can change re-checks the model: the edited `ignore` shows at once.
async function configurationTest() {
  const ignoring = 'ignore = ["eq-nonzero-const"]\n';
  const hasEq = (d) => d.some((x) => x.code === 'eq-nonzero-const');
  const has = (d) => d.length > 0 && hasEq(d);
  const hasNot = (d) => d.length > 0 && !hasEq(d);

  // Found by polling.
  let ws = makeWorkspace();
  let server = client.startServer(qlint);
  await initialize(server, ws);
  server.connection.sendNotification(rpc.InitializedNotification.type, {});
  await server.waitFor(s1Uri, has, 'eq-nonzero-const before the configuration changes');
  fs.writeFileSync(path.join(ws, '.qlint.toml'), ignoring);
  await server.waitFor(s1Uri, hasNot, 'eq-nonzero-const ignored after .qlint.toml changed (polling)');
  fs.rmSync(path.join(ws, '.qlint.toml'));
  await server.waitFor(s1Uri, has, 'eq-nonzero-const back after .qlint.toml went (polling)');
  // A pyproject.toml that appears.
  fs.writeFileSync(path.join(ws, 'pyproject.toml'), `[tool.qlint]\n${ignoring}`);
  await server.waitFor(s1Uri, hasNot, 'eq-nonzero-const ignored after pyproject.toml appeared (polling)');
  console.log('ok - .qlint.toml edited, removed, and a pyproject.toml added: found by polling, models re-checked');
  await shutDown(server, ws);

  // Told by the client, with polling too slow to notice.
  ws = makeWorkspace();
  server = client.startServer(qlint, [], 3600 * 1000);
  await initialize(server, ws);
  server.connection.sendNotification(rpc.InitializedNotification.type, {});
  await server.waitFor(s1Uri, has, 'eq-nonzero-const before the configuration changes');
  const config = path.join(ws, '.qlint.toml');
  fs.writeFileSync(config, ignoring);
  server.connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, {
    changes: [{uri: uriOf(config), type: rpc.FileChangeType.Changed}],
  });
  await server.waitFor(s1Uri, hasNot, 'eq-nonzero-const ignored after the client announced .qlint.toml');
  fs.writeFileSync(config, '');
  server.connection.sendNotification(rpc.DidChangeConfigurationNotification.type, {settings: {}});
  await server.waitFor(s1Uri, has, 'eq-nonzero-const back after workspace/didChangeConfiguration');
  console.log('ok - didChangeWatchedFiles of .qlint.toml and didChangeConfiguration re-check the models');
  await shutDown(server, ws);
}

// A workspace that holds S1's source and its archive exported from there (so the findings are on a
// file of the workspace), with `config` as .qlint.toml, or none.
function makeExportedWorkspace(config) {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'qlint-lsp-features-'));
  client.exportSeedInto(sourceDir, ws);
  if (config !== null) fs.writeFileSync(path.join(ws, '.qlint.toml'), config);
  return ws;
}

async function ignoreInFileTest() {
  const isIgnoreInFile = (a) => /ignore `eq-nonzero-const` in this file/.test(a.title);
  const cases = [
    {config: 'bits = 16\n', capabilities: {}, offered: true, what: 'the .qlint.toml there is'},
    {config: null, capabilities: {workspace: {workspaceEdit: {documentChanges: true, resourceOperations: ['create']}}},
     offered: true,
     what: 'a new .qlint.toml'},
    {config: null, capabilities: {}, offered: false, what: 'nothing, for a client that cannot create files'},
  ];
  for (const {config, capabilities, offered, what} of cases) {
    const ws = makeExportedWorkspace(config);
    const python = uriOf(path.join(ws, 's1_eq_one.py'));
    const server = client.startServer(qlint);
    await initialize(server, ws, capabilities);
    server.connection.sendNotification(rpc.InitializedNotification.type, {});
    const found = await server.waitFor(python, (d) => d.some((x) => x.code === 'eq-nonzero-const'), 'eq-nonzero-const');
    const eq = found.find((d) => d.code === 'eq-nonzero-const');
    const actions = await server.connection.sendRequest(rpc.CodeActionRequest.type, {
      textDocument: {uri: python}, range: eq.range, context: {diagnostics: [eq], only: [rpc.CodeActionKind.QuickFix]},
    });
    const action = actions.find(isIgnoreInFile);
    assert.strictEqual(Boolean(action), offered, `${what}: ${JSON.stringify(actions.map((a) => a.title))}`);
    if (action) {
      assert.strictEqual(action.kind, 'quickfix');
      assert.ok(!action.isPreferred, 'ignoring is never the preferred fix');
      applyEdit(action.edit);
      const written = fs.readFileSync(path.join(ws, '.qlint.toml'), 'utf8');
      assert.match(written, /\[per-file-ignores\]\n"s1_eq_one.py" = \["eq-nonzero-const"\]/);
      if (config) assert.ok(written.startsWith(config), `the configuration's own text kept: ${written}`);
      // The edited configuration is found by polling, and the finding goes; the others stay.
      await server.waitFor(python, (d) => d.length > 0 && !d.some((x) => x.code === 'eq-nonzero-const'),
                           'eq-nonzero-const ignored in s1_eq_one.py');
    }
    console.log(`ok - ignore in this file: ${what}`);
    await shutDown(server, ws);
  }
}

async function unchangedModelTest() {
  const ws = makeWorkspace();
  const model = path.join(ws, 'models/s1_eq_one.pt');
  const server = client.startServer(qlint);
  await initialize(server, ws);
  server.connection.sendNotification(rpc.InitializedNotification.type, {});
  const found = await server.waitFor(s1Uri, (d) => d.length > 0, 'the findings of s1_eq_one');
  const unchanged = () => server.logs.filter((l) => /s1_eq_one\.pt is unchanged since its last check/.test(l)).length;
  const checked = () => server.logs.filter((l) => /checked .*s1_eq_one\.pt in/.test(l)).length;
  assert.strictEqual(checked(), 1);

  // Announced by the client, unchanged.
  server.connection.sendNotification(rpc.DidChangeWatchedFilesNotification.type, {
    changes: [{uri: uriOf(model), type: rpc.FileChangeType.Changed}],
  });
  await server.until(() => (unchanged() === 1 ? true : undefined), 'the announced model found unchanged');
  // Touched (a new modification time, the same bytes): the poller sees it, the check does not load it.
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(model, later, later);
  await server.until(() => (unchanged() === 2 ? true : undefined), 'the touched model found unchanged');
  assert.strictEqual(checked(), 1, `loaded again: ${JSON.stringify(server.logs)}`);
  assert.deepStrictEqual(server.diagnostics.get(s1Uri), found);
  console.log('ok - an announced and a touched but unchanged model are not loaded again');

  // Changed bytes: checked.
  fs.copyFileSync(path.join(buildDir, 'examples/clean/compare_zero.pt'), model);
  await server.waitFor(s1Uri, (d) => d.length === 0, 'the findings gone after the model changed');
  assert.strictEqual(checked(), 2);
  console.log('ok - a changed model is checked');
  await shutDown(server, ws);
}

async function main() {
  if (!fs.existsSync(qlint)) throw new Error(`no qlint binary at ${qlint}`);
  await pullAndProgressTest();
  await noProgressWithoutCapabilityTest();
  await configurationTest();
  await ignoreInFileTest();
  await unchangedModelTest();
}

client.runMain(main);
