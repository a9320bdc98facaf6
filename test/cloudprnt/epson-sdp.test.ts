import { describe, expect, it } from 'vitest';
import {
  eposPrintOfText,
  outcomeOf,
  parseSdpForm,
  printerStateOfAsb,
  printRequestInfo,
  readPrintResults,
  readStatusNotification,
} from '../../server/cloudprnt/epson-sdp.ts';
import { escapeXml } from '../../server/templates/render/escape.ts';
import { printerWaitReason } from '../../shared/wait-reasons.ts';

/**
 * Epson Server Direct Print, from the manual's examples (docs/cloudprnt.md lists the pages):
 * the form requests, the print request answered, the printing result read back.
 */
describe('the printer’s requests (Request (Print Request), Request (Printing Result))', () => {
  it('reads a print request: ConnectionType=GetRequest and the ID set in WebConfig', () => {
    expect(parseSdpForm('ConnectionType=GetRequest&ID=')).toEqual({ kind: 'GetRequest', id: '' });
    expect(parseSdpForm('ConnectionType=GetRequest&ID=kitchen')).toEqual({
      kind: 'GetRequest',
      id: 'kitchen',
    });
  });

  it('reads a printing result with its ResponseFile, URL-decoded', () => {
    const file = '<PrintResponseInfo Version="2.00"></PrintResponseInfo>';
    const form = `ConnectionType=SetResponse&ID=&ResponseFile=${encodeURIComponent(file)}`;
    expect(parseSdpForm(form)).toEqual({ kind: 'SetResponse', id: '', responseFile: file });
  });

  it('reads a status notification: Status as the example sends it, ResponseFile as the table names it', () => {
    expect(parseSdpForm('ConnectionType=SetStatus&ID=&Status=x')).toMatchObject({
      kind: 'SetStatus',
      status: 'x',
    });
    expect(parseSdpForm('ConnectionType=SetStatus&ID=&ResponseFile=y')).toMatchObject({
      kind: 'SetStatus',
      status: 'y',
    });
  });

  it.each(['', 'ConnectionType=Other&ID=', 'ConnectionType=SetResponse&ID='])(
    'refuses %j',
    (body) => {
      expect(parseSdpForm(body)).toBeUndefined();
    },
  );
});

describe('the print request answered (Response (Print request), PrintRequestInfo 2.00)', () => {
  it('puts each job in its own ePOSPrint with the printer’s device, a timeout and its job id', () => {
    const xml = printRequestInfo([
      { printJobId: '42.1', eposPrint: eposPrintOfText('Hello\n') },
      { printJobId: '43.1', eposPrint: eposPrintOfText('World\n') },
    ]);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="utf-8"\?>\n<PrintRequestInfo Version="2.00">/,
    );
    expect(xml.match(/<ePOSPrint>/g)).toHaveLength(2);
    expect(xml).toContain(
      '<Parameter><devid>local_printer</devid><timeout>10000</timeout><printjobid>42.1</printjobid></Parameter>',
    );
  });

  it('writes text as ePOS-Print XML, line feeds kept, then a feed cut', () => {
    expect(eposPrintOfText('A & B\nC')).toBe(
      '<epos-print xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print"><text>A &#38; B&#10;C</text><cut type="feed"/></epos-print>',
    );
  });

  it('escapes what would be markup', () => {
    expect(escapeXml('<x a="1">\'')).toBe('&#60;x a=&#34;1&#34;&#62;&#39;');
  });
});

describe('the printing result (PrintResponseInfo)', () => {
  /** The manual's example of version 3.00: one print succeeded, a display failed. */
  const v3 = `<?xml version="1.0" encoding="UTF-8"?>
<PrintResponseInfo Version="3.00">
<ServerDirectPrint><Response Success="true"/></ServerDirectPrint>
<ePOSPrint><Parameter><devid>local_printer</devid><printjobid>ABC123</printjobid></Parameter>
<PrintResponse><response xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print" success="true" code="" status="251658262" battery="0"/></PrintResponse>
</ePOSPrint>
</PrintResponseInfo>`;

  it('reads each job’s id, result, code and status', () => {
    expect(readPrintResults(v3)).toEqual([
      { printJobId: 'ABC123', success: true, code: '', status: 251658262 },
    ]);
  });

  it('reads a version 1.00 result (no job id)', () => {
    const v1 =
      '<PrintResponseInfo Version="1.00"><response xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print" success="false" code="EX_BADPORT" status="1" battery="0"/></PrintResponseInfo>';
    expect(readPrintResults(v1)).toEqual([
      { printJobId: null, success: false, code: 'EX_BADPORT', status: 1 },
    ]);
  });

  it.each([
    [{ success: true, code: '' }, { kind: 'printed' }],
    [
      { success: false, code: 'EPTR_REC_EMPTY' },
      { kind: 'wait', code: 'printer_out_of_paper' },
    ],
    [
      { success: false, code: 'EPTR_COVER_OPEN' },
      { kind: 'wait', code: 'printer_cover_open' },
    ],
    [
      { success: false, code: 'EX_TIMEOUT' },
      { kind: 'failed', code: 'epson_EX_TIMEOUT' },
    ],
    [
      { success: false, code: 'SchemaError' },
      { kind: 'failed', code: 'epson_SchemaError' },
    ],
  ])('%j → %j', (result, outcome) => {
    expect(outcomeOf({ printJobId: '1.1', status: 0, ...result })).toMatchObject(outcome);
  });
});

describe('the status notification (Status Notification, Request; ePOS-Print status bits)', () => {
  /** The manual's example: one `<printerstatus>` per device, the printer's own `local_printer`. */
  const manual = `<?xml version="1.0" encoding="utf-8"?>
<statusmonitor Version="1.00">
<printerstatus devicename="kitchen_printer" asbstatus = "0x00000001"/>
<printerstatus devicename="local_printer" asbstatus = "0x0F00003C"/>
</statusmonitor>`;

  it('reads the asbstatus of local_printer, the device jobs print on', () => {
    expect(readStatusNotification(manual)).toBe(0x0f00003c);
  });

  it('reads the only device listed, whatever its name, and a bare hex value', () => {
    const one =
      '<statusmonitor Version="1.00"><printerstatus devicename="p" asbstatus="0x00080008"/></statusmonitor>';
    expect(readStatusNotification(one)).toBe(0x00080008);
    expect(readStatusNotification('0x00000020')).toBe(0x20);
  });

  it.each([
    '',
    'nonsense',
    '<statusmonitor Version="1.00"></statusmonitor>',
    '<statusmonitor><printerstatus devicename="a" asbstatus="0x1"/><printerstatus devicename="b" asbstatus="0x1"/></statusmonitor>',
    '<statusmonitor><printerstatus devicename="local_printer" asbstatus="twelve"/></statusmonitor>',
  ])('reads nothing from %j', (status) => {
    expect(readStatusNotification(status)).toBeUndefined();
  });

  const printer = (bits: number) => ({
    name: 'Bar',
    is_default: true,
    accepting_jobs: null,
    ...printerStateOfAsb(bits),
  });

  it.each([
    [
      'paper end (and offline)',
      0x00080008,
      'stopped',
      ['media-empty-error'],
      'printer_out_of_paper',
    ],
    ['cover open (and offline)', 0x00000028, 'stopped', ['cover-open-error'], 'printer_cover_open'],
    ['an autocutter error', 0x00000808, 'stopped', ['other-error'], 'printer_stopped'],
    ['offline alone', 0x00000008, 'offline', ['offline-report'], 'printer_offline'],
    ['no answer from the printer', 0x00000001, 'offline', ['offline-report'], 'printer_offline'],
    ['paper near end', 0x00020000, 'idle', ['media-low-warning'], null],
    ['all clear', 0x00000000, 'idle', [], null],
  ])('%s: %s, %j, jobs wait with %s', (_, bits, state, reasons, code) => {
    expect(printerStateOfAsb(bits)).toMatchObject({ state, reasons });
    expect(printerWaitReason(printer(bits))?.code ?? null).toBe(code);
  });

  it('a bit that says nothing of printing (drawer, print success, buzzer) changes nothing', () => {
    const noise = 0x00000004 | 0x00000002 | 0x01000000;
    expect(printerStateOfAsb(0x00080008 | noise)).toEqual(printerStateOfAsb(0x00080008));
    expect(printerStateOfAsb(noise)).toEqual(printerStateOfAsb(0));
  });

  it('says what the bits said in words', () => {
    expect(printerStateOfAsb(0x000a0028).message).toBe(
      'its status notification says no paper, cover open',
    );
    expect(printerStateOfAsb(0).message).toBeNull();
  });
});
