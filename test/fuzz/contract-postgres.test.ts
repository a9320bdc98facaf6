import { fuzzContractOn } from './contract.ts';

/** The contract fuzz on PostgreSQL (the SQLite run is its own file, so the two run side by side). */
fuzzContractOn('postgres');
