import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { serverRoot } from '../config.js';
import { parseReleaseFile, type ImportRowError } from './import.js';
import type { ParsedReleaseInput } from '@releases/contract';

/** The sample catalogue shipped in the repo (labelled as sample data in its README). */
const sampleCataloguePath = path.join(serverRoot, 'data', 'sample-catalogue.json');

export async function readSampleCatalogue(): Promise<ParsedReleaseInput[]> {
  const parsed = parseReleaseFile(await readFile(sampleCataloguePath, 'utf8'));
  if (!parsed.ok) {
    const first = parsed.errors[0] as ImportRowError;
    throw new Error(`the sample catalogue is invalid: row ${first.row}: ${first.message}`);
  }
  return parsed.releases;
}
