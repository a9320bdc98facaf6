import { describe, expect, it } from 'vitest';
import {
  capabilitiesFrom,
  claimNumberOf,
  claimTokenOf,
  clientActionsToAsk,
  confirmationOf,
  jobTokenOf,
  mediaTypesFor,
  parseJobToken,
  pollRequestSchema,
  printerControlsFor,
  printerStateOf,
  readAsb,
  statusNumberOf,
} from '../../server/cloudprnt/protocol.ts';
import { printerWaitReason } from '../../shared/wait-reasons.ts';

/**
 * Star CloudPRNT's HTTP method as the protocol reference describes it (docs/cloudprnt.md lists
 * the pages): the poll's JSON request, printer status codes, ASB bits, client actions, the
 * job token, the DELETE's code. Examples shaped as the manual's templates show them.
 */

/** The manual's JSON request template, filled in as an mC-Print3 sends it. */
const manualPoll = {
  status: '23 86 00 00 00 00 00 00 00',
  printerMAC: '00:11:62:12:34:56',
  uniqueID: null,
  statusCode: '200 OK',
  printingInProgress: false,
  clientAction: null,
};

describe('the poll request (Polling the server (POST), JSON Request)', () => {
  it('accepts the template with null optional fields', () => {
    expect(pollRequestSchema.parse(manualPoll).statusCode).toBe('200 OK');
  });

  it('needs only statusCode, and keeps fields it does not read (barcodeReader)', () => {
    const poll = pollRequestSchema.parse({ statusCode: '200 OK', barcodeReader: [] });
    expect(poll.statusCode).toBe('200 OK');
  });

  it('refuses a poll without statusCode', () => {
    expect(pollRequestSchema.safeParse({ status: '23 86 00 00 00 00' }).success).toBe(false);
  });
});

describe('printer status codes (CloudPRNT Common Specification, Printer Status Codes)', () => {
  it('reads the 3 or 4 digit code before the words', () => {
    expect(statusNumberOf('211 Paper low')).toBe(211);
    expect(statusNumberOf('2001 Something')).toBe(2001);
    expect(statusNumberOf('OK')).toBeNaN();
  });

  it.each([
    ['200 OK', 'idle', []],
    ['211 Paper low', 'idle', ['media-low-warning']],
    ['410 Out of paper', 'stopped', ['media-empty-error']],
    ['411 Paper jam', 'stopped', ['media-jam-error']],
    ['420 Cover open', 'stopped', ['cover-open-error']],
    ['499 Something else', 'stopped', ['other-error']],
    ['510 Incompatible media', 'idle', []],
  ])('%s → %s %j', (statusCode, state, reasons) => {
    const seen = printerStateOf({ statusCode, status: '23 86 00 00 00 00 00 00 00' });
    expect(seen.state).toBe(state);
    expect(seen.reasons).toEqual(reasons);
  });

  it('keeps the words as the message', () => {
    expect(printerStateOf({ statusCode: '410 Out of paper' }).message).toBe('Out of paper');
  });

  it('says printing while printingInProgress', () => {
    expect(printerStateOf({ statusCode: '200 OK', printingInProgress: true }).state).toBe(
      'printing',
    );
  });

  it('turns out of paper and cover open into the wait reasons agents give', () => {
    const info = (statusCode: string) => ({
      name: 'cloudprnt',
      is_default: true,
      accepting_jobs: null,
      ...printerStateOf({ statusCode }),
    });
    expect(printerWaitReason(info('410 Out of paper'))?.code).toBe('printer_out_of_paper');
    expect(printerWaitReason(info('420 Cover open'))?.code).toBe('printer_cover_open');
    expect(printerWaitReason(info('211 Paper low'))).toBeNull();
  });
});

describe('ASB status bits (Star automatic status: byte 3 printer status, byte 6 sensors)', () => {
  it('reads an online printer as no flags', () => {
    expect(readAsb('23 86 00 00 00 00 00 00 00')).toEqual({
      coverOpen: false,
      offline: false,
      paperEmpty: false,
      paperNearEnd: false,
    });
  });

  it('reads cover open (byte 3, bit 5) and offline (byte 3, bit 3)', () => {
    expect(readAsb('23 86 28 00 00 00 00 00 00')).toMatchObject({ coverOpen: true, offline: true });
  });

  it('reads paper end (byte 6, bit 3) and near end (byte 6, bit 2), spaces optional', () => {
    expect(readAsb('2386080000080000')).toMatchObject({ paperEmpty: true, paperNearEnd: false });
    expect(readAsb('238600000004')).toMatchObject({ paperEmpty: false, paperNearEnd: true });
  });

  it('ignores a status that is not hex or too short', () => {
    expect(readAsb('zz')).toBeUndefined();
    expect(readAsb('23 86')).toBeUndefined();
    expect(readAsb(null)).toBeUndefined();
  });

  it('stops a printer whose code says 200 but whose ASB says paper end', () => {
    const seen = printerStateOf({ statusCode: '200 OK', status: '23 86 08 00 00 08 00 00 00' });
    expect(seen.state).toBe('stopped');
    expect(seen.reasons).toEqual(['media-empty-error']);
  });
});

describe('client actions (Polling the server (POST), Client Action)', () => {
  it('asks ClientType, Encodings and GetPollInterval of a printer it knows nothing of', () => {
    expect(clientActionsToAsk({}).map((ask) => ask.request)).toEqual([
      'ClientType',
      'Encodings',
      'GetPollInterval',
    ]);
  });

  it('asks nothing once each has its answer', () => {
    const known = capabilitiesFrom({}, [
      { request: 'ClientType', result: 'Star mC-Print3' },
      { request: 'Encodings', result: 'image/png; application/vnd.star.starprnt;text/plain' },
      { request: 'GetPollInterval', result: '5' },
    ]);
    expect(known).toEqual({
      clientType: 'Star mC-Print3',
      encodings: ['image/png', 'application/vnd.star.starprnt', 'text/plain'],
      pollIntervalSeconds: 5,
    });
    expect(clientActionsToAsk(known)).toEqual([]);
  });

  it('returns the same object when the poll carries no results (nothing to write)', () => {
    const known = { clientType: 'Star mC-Print3' };
    expect(capabilitiesFrom(known, null)).toBe(known);
    expect(capabilitiesFrom(known, [])).toBe(known);
  });

  it('returns the same object when the results repeat what it knows', () => {
    const known = { clientType: 'Star mC-Print3', encodings: ['text/plain'] };
    const again = capabilitiesFrom(known, [
      { request: 'ClientType', result: 'Star mC-Print3' },
      { request: 'Encodings', result: 'text/plain' },
    ]);
    expect(again).toBe(known);
  });

  it('ignores a poll interval that is not a number of seconds', () => {
    expect(capabilitiesFrom({}, [{ request: 'GetPollInterval', result: 'soon' }])).toEqual({});
  });
});

describe('media types (CloudPRNT Common Specification, Content Media Types)', () => {
  it('serves StarPRNT jobs as StarPRNT and text as text', () => {
    expect(mediaTypesFor('application/vnd.star.starprnt')).toEqual([
      'application/vnd.star.starprnt',
    ]);
    expect(mediaTypesFor('text/plain')).toEqual(['text/plain']);
  });

  it('cannot serve PDF, ZPL or ESC/POS to a Star printer', () => {
    expect(mediaTypesFor('application/pdf')).toEqual([]);
    expect(mediaTypesFor('application/vnd.zebra.zpl')).toEqual([]);
    expect(mediaTypesFor('application/vnd.escpos')).toEqual([]);
  });

  it('offers only what the printer said it accepts', () => {
    expect(mediaTypesFor('text/plain', ['image/png', 'application/vnd.star.starprnt'])).toEqual([]);
  });
});

describe('job token and confirmation (Print job confirmation (DELETE))', () => {
  it('names one claim of one job, and reads back', () => {
    expect(parseJobToken(jobTokenOf(42, 3))).toEqual({ jobId: 42, attempt: 3 });
  });

  it.each(['', '42', 'a.b', '0.1', '42.1.2', null])('refuses the token %j', (token) => {
    expect(parseJobToken(token)).toBeUndefined();
  });

  it.each(['OK', 'ok', '200 OK', '200', '201'])('%s confirms', (code) => {
    expect(confirmationOf(code)).toEqual({ printed: true });
  });

  it('fails the job with the code and words of a 5xx', () => {
    expect(confirmationOf('510 Incompatible media type')).toEqual({
      printed: false,
      unprinted: false,
      code: 'cloudprnt_510',
      message: 'the printer reported 510 (Incompatible media type) instead of printing the job',
    });
  });

  it('says nothing was printed after a 520 (the download timed out)', () => {
    expect(confirmationOf('520 Timeout')).toMatchObject({ printed: false, unprinted: true });
  });

  it('fails the job when the code is missing', () => {
    expect(confirmationOf(undefined)).toMatchObject({ printed: false, code: 'cloudprnt_unknown' });
  });
});

describe('the job token the poll hands out (JSON Response `jobToken`; the GET and DELETE `token`)', () => {
  it('names a claim by its number, and reads back', () => {
    expect(claimTokenOf(7)).toBe('7');
    expect(claimNumberOf(claimTokenOf(7))).toBe(7);
  });

  it.each(['', '0', '07', '-1', '1.2', 'abc', '1234567890', ' 7'])(
    'names no claim when it is %j (never one ShopDesk gave)',
    (token) => {
      expect(claimNumberOf(token)).toBe(0);
    },
  );
});

describe('cut and drawer in the GET answer (Response (GET), custom response headers)', () => {
  it('plain text: a full cut after a feed by default, none for a printer without a cutter', () => {
    expect(printerControlsFor('text/plain', null)).toEqual({ 'X-Star-Cut': 'full; feed=true' });
    expect(printerControlsFor('text/plain', { cut: true })).toEqual({
      'X-Star-Cut': 'full; feed=true',
    });
    expect(printerControlsFor('text/plain', { cut: false })).toEqual({
      'X-Star-Cut': 'none; feed=true',
    });
  });

  it('plain text: the drawer opens at the end of the job when the profile asks', () => {
    expect(printerControlsFor('text/plain', { drawer: true })).toEqual({
      'X-Star-Cut': 'full; feed=true',
      'X-Star-CashDrawer': 'end',
    });
    expect(printerControlsFor('text/plain', { drawer: false })).not.toHaveProperty(
      'X-Star-CashDrawer',
    );
  });

  it('StarPRNT carries its own commands: no header', () => {
    expect(
      printerControlsFor('application/vnd.star.starprnt', { cut: true, drawer: true }),
    ).toEqual({});
  });
});
