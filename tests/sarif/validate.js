#!/usr/bin/env node
// Validates SARIF logs against the SARIF 2.1.0 JSON schema (draft-04), as published by
// Microsoft in @microsoft/jest-sarif (pinned in package-lock.json).
//
//   node validate.js FILE...     one log per file; "-" reads standard input
//
// Prints "FILE: valid" or every schema error with its JSON pointer, and exits 1 when any log is
// invalid, 2 when a file cannot be read or parsed.
'use strict';

const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const SCHEMA = path.join(__dirname, 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas',
                         'sarif-2.1.0-rtm.5.json');

function makeValidator() {
  // The SARIF schema is draft-04, which ajv 6 reads only with that meta-schema added.
  const ajv = new Ajv({schemaId: 'auto', allErrors: true, format: 'full'});
  ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
  return ajv.compile(JSON.parse(fs.readFileSync(SCHEMA, 'utf8')));
}

function readLog(file) {
  const text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  return JSON.parse(text);
}

function main(files) {
  if (files.length === 0) {
    console.error('usage: validate.js FILE...');
    return 2;
  }
  const validate = makeValidator();
  let status = 0;
  for (const file of files) {
    let log;
    try {
      log = readLog(file);
    } catch (error) {
      console.error(`${file}: cannot read SARIF: ${error.message}`);
      return 2;
    }
    if (validate(log)) {
      console.log(`${file}: valid`);
      continue;
    }
    status = 1;
    for (const error of validate.errors)
      console.log(`${file}: ${error.dataPath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
  }
  return status;
}

process.exitCode = main(process.argv.slice(2));
