// The languages osrm-text-instructions writes instructions in (its translation files): what `language`
// accepts. Kept apart from the compiler so that the request schema can list them without loading it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { supportedCodes } = require('osrm-text-instructions/languages.js') as { supportedCodes: string[] };

export const INSTRUCTION_LANGUAGES: readonly string[] = [...supportedCodes].sort();
