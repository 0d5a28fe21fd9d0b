#!/usr/bin/env node
// Builds test/upstream-admission (a Go program running the operators' own admission validation on
// rendered objects, from their Go modules) before jest starts (`npm test`), and writes the index the
// tests read (<cache>/upstream-admission.json, read by test/upstream/admission.ts). See go-build.mjs.
import { setUpGoPrograms } from './go-build.mjs';

setUpGoPrograms({
  name: 'upstream-admission',
  module: 'upstream-admission',
  binaries: { 'upstream-admission': '.' },
  what: 'Rendered objects are not checked by the operators\' own validation in this run',
});
