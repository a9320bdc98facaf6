import { fuzzRoutesOn } from './fuzz-routes.ts';

/** The route fuzz on PostgreSQL (the SQLite run is its own file, so the two run side by side). */
fuzzRoutesOn('postgres');
