// A Language Server Protocol client for the tests: `qlint server` started as a child process and
// driven with the client library VS Code uses (vscode-languageserver-protocol over
// vscode-jsonrpc, pinned in package-lock.json and installed by scripts/setup). It keeps what the
// server sends: published diagnostics, its own requests (registrations, progress tokens,
// diagnostic refreshes), $/progress and shown messages.
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const path = require('path');
const url = require('url');
const rpc = require('vscode-languageserver-protocol/node');

const TIMEOUT_MS = 120000;

const uriOf = (file) => url.pathToFileURL(file).href;

function startServer(qlint, args = [], pollMs = 200, env = {}) {
  const child = childProcess.spawn(qlint, ['server', '--poll-interval', String(pollMs), ...args],
                                   {stdio: ['pipe', 'pipe', 'inherit'], env: {...process.env, ...env}});
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(child.stdout),
                                                  new rpc.StreamMessageWriter(child.stdin));
  const diagnostics = new Map();  // uri -> the latest published diagnostics
  const waiters = [];
  const wake = () => {
    for (const waiter of waiters.slice()) waiter();
  };
  connection.onNotification(rpc.PublishDiagnosticsNotification.type, ({uri, diagnostics: list}) => {
    diagnostics.set(uri, list);
    wake();
  });
  const registrations = [];
  connection.onRequest(rpc.RegistrationRequest.type, (params) => {
    registrations.push(...params.registrations);
    return null;
  });
  // In order of arrival: the server's requests and $/progress, as {method, params}.
  const events = [];
  const serverRequest = (method) => connection.onRequest(method, (params) => {
    events.push({method, params});
    wake();
    return null;
  });
  serverRequest('window/workDoneProgress/create');
  serverRequest('workspace/diagnostic/refresh');
  connection.onNotification('$/progress', (params) => {
    events.push({method: '$/progress', params});
    wake();
  });
  const messages = [];
  connection.onNotification(rpc.ShowMessageNotification.type, (m) => messages.push(m));
  const logs = [];  // window/logMessage texts
  connection.onNotification(rpc.LogMessageNotification.type, (m) => {
    logs.push(m.message);
    wake();
  });
  connection.listen();

  // Resolves with what `probe` returns once it returns something other than undefined; probes
  // again whenever the server sends something.
  function until(probe, what) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; ` +
          `messages: ${JSON.stringify(messages)}`)), TIMEOUT_MS);
      const check = () => {
        const result = probe();
        if (result === undefined) return;
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(result);
      };
      waiters.push(check);
      check();
    });
  }
  // Resolves with the diagnostics of `uri` once `predicate` holds for them.
  function waitFor(uri, predicate, what) {
    return until(() => (diagnostics.has(uri) && predicate(diagnostics.get(uri)) ? diagnostics.get(uri) : undefined),
                 `${what} on ${uri}; last: ${JSON.stringify(diagnostics.get(uri))}`);
  }
  return {child, exited, connection, diagnostics, until, waitFor, registrations, events, messages, logs};
}

async function initialize(server, ws, capabilities = {workspace: {didChangeWatchedFiles: {dynamicRegistration: true}}},
                          initializationOptions = {trusted: true}) {
  return server.connection.sendRequest(rpc.InitializeRequest.type, {
    processId: process.pid,
    rootUri: uriOf(ws),
    workspaceFolders: [{uri: uriOf(ws), name: 'ws'}],
    capabilities,
    initializationOptions,
  });
}

// Applies a WorkspaceEdit to the files on disk, as a client would: `changes`, or `documentChanges`
// (text edits, and files created, which must not exist yet: no option says otherwise).
function applyEdit(edit) {
  if (edit.documentChanges) {
    for (const change of edit.documentChanges) {
      if (change.kind === 'create') {
        const file = url.fileURLToPath(change.uri);
        if (fs.existsSync(file)) throw new Error(`the edit creates ${file}, which exists`);
        fs.writeFileSync(file, '');
      } else if (change.kind === undefined) {
        applyTextEdits(change.textDocument.uri, change.edits);
      } else {
        throw new Error(`unexpected resource operation ${change.kind}`);
      }
    }
    return;
  }
  for (const [uri, edits] of Object.entries(edit.changes)) applyTextEdits(uri, edits);
}

// Applies text edits to a file on disk, the last edit first.
function applyTextEdits(uri, edits) {
  const file = url.fileURLToPath(uri);
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const sorted = edits.slice().sort((a, b) => b.range.start.line - a.range.start.line ||
                                              b.range.start.character - a.range.start.character);
  for (const {range, newText} of sorted) {
    const before = lines[range.start.line].slice(0, range.start.character);
    const after = lines[range.end.line].slice(range.end.character);
    lines.splice(range.start.line, range.end.line - range.start.line + 1, ...(before + newText + after).split('\n'));
  }
  fs.writeFileSync(file, lines.join('\n'));
}

// Copies the seed example S1's source into the workspace `ws` and exports it there (the archive
// into models/, its input into inputs/), so that the archive names the copy; returns the export
// command, which `ws`'s configuration can run again on save.
function exportSeedInto(sourceDir, ws) {
  fs.copyFileSync(path.join(sourceDir, 'examples/seed/s1_eq_one.py'), path.join(ws, 's1_eq_one.py'));
  const command = `/usr/bin/python3 ${path.join(sourceDir, 'examples/export.py')} --out models --inputs inputs s1_eq_one.py`;
  childProcess.execSync(command, {cwd: ws, stdio: 'inherit'});
  return command;
}

// Runs `test`, and exits the process with 0, or 1 and the failure.
function runMain(test) {
  test().then(() => process.exit(0), (e) => {
    console.error(`FAILED: ${e.stack || e}`);
    process.exit(1);
  });
}

module.exports = {TIMEOUT_MS, uriOf, startServer, initialize, applyEdit, exportSeedInto, runMain};
