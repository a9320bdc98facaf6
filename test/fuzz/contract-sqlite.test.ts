import { fuzzContractOn } from './contract.ts';

/** The contract fuzz on SQLite (the PostgreSQL run is its own file, so the two run side by side). */
fuzzContractOn('sqlite');
