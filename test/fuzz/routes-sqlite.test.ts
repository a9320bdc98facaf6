import { fuzzRoutesOn } from './fuzz-routes.ts';

/** The route fuzz on SQLite (the PostgreSQL run is its own file, so the two run side by side). */
fuzzRoutesOn('sqlite');
