import { httpCall } from '../http-request.ts';

/**
 * Just enough IPP/1.1 (RFC 8010 encoding, RFC 8011 operations) to read a job's and a
 * printer's state from the local CUPS scheduler. `lpstat` cannot tell a completed job from
 * an aborted or cancelled one; IPP says so directly, with the reason.
 */

const operations = { getJobAttributes: 0x0009, getPrinterAttributes: 0x000b } as const;

// RFC 8010 §3.5.2 value tags used here.
const tag = {
  operationAttributes: 0x01,
  endOfAttributes: 0x03,
  integer: 0x21,
  boolean: 0x22,
  enum: 0x23,
  uri: 0x45,
  charset: 0x47,
  naturalLanguage: 0x48,
  keyword: 0x44,
  name: 0x42,
  resolution: 0x32,
  rangeOfInteger: 0x33,
} as const;

export type IppValue = string | number | boolean;
export type IppAttributes = Record<string, IppValue[]>;

export interface IppResponse {
  statusCode: number;
  attributes: IppAttributes;
}

/** RFC 8011 §5.3.7 job-state. */
export const jobStates = {
  3: 'pending',
  4: 'pending-held',
  5: 'processing',
  6: 'processing-stopped',
  7: 'canceled',
  8: 'aborted',
  9: 'completed',
} as const;

/** RFC 8011 §5.4.11 printer-state. */
export const printerStates = { 3: 'idle', 4: 'processing', 5: 'stopped' } as const;

function attribute(valueTag: number, name: string, values: (string | number)[]): Buffer[] {
  return values.map((value, index) => {
    const nameBytes = Buffer.from(index === 0 ? name : '', 'utf8');
    let valueBytes: Buffer;
    if (typeof value === 'number') {
      valueBytes = Buffer.alloc(4);
      valueBytes.writeInt32BE(value);
    } else {
      valueBytes = Buffer.from(value, 'utf8');
    }
    const head = Buffer.alloc(3);
    head.writeUInt8(valueTag, 0);
    head.writeUInt16BE(nameBytes.length, 1);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(valueBytes.length);
    return Buffer.concat([head, nameBytes, length, valueBytes]);
  });
}

export function encodeIppRequest(
  operation: number,
  requestId: number,
  target: { name: string; uri: string },
  requested: string[],
): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt8(2, 0); // IPP 2.0, which CUPS speaks
  header.writeUInt8(0, 1);
  header.writeUInt16BE(operation, 2);
  header.writeInt32BE(requestId, 4);
  header.writeUInt8(tag.operationAttributes, 8);
  return Buffer.concat([
    header,
    ...attribute(tag.charset, 'attributes-charset', ['utf-8']),
    ...attribute(tag.naturalLanguage, 'attributes-natural-language', ['en']),
    ...attribute(tag.uri, target.name, [target.uri]),
    ...attribute(tag.name, 'requesting-user-name', ['shopdesk-agent']),
    ...attribute(tag.keyword, 'requested-attributes', requested),
    Buffer.from([tag.endOfAttributes]),
  ]);
}

export function decodeIppResponse(body: Buffer): IppResponse {
  if (body.length < 9) throw new Error('IPP response too short');
  const statusCode = body.readUInt16BE(2);
  const attributes: IppAttributes = {};
  let offset = 8;
  let lastName = '';
  while (offset < body.length) {
    const valueTag = body.readUInt8(offset);
    offset += 1;
    if (valueTag === tag.endOfAttributes) break;
    if (valueTag < 0x10) continue; // a group delimiter: the names are unique enough here
    const nameLength = body.readUInt16BE(offset);
    offset += 2;
    const name = nameLength === 0 ? lastName : body.toString('utf8', offset, offset + nameLength);
    offset += nameLength;
    const valueLength = body.readUInt16BE(offset);
    offset += 2;
    const raw = body.subarray(offset, offset + valueLength);
    offset += valueLength;
    let value: IppValue;
    if ((valueTag === tag.integer || valueTag === tag.enum) && valueLength === 4) {
      value = raw.readInt32BE(0);
    } else if (valueTag === tag.boolean && valueLength === 1) {
      value = raw.readUInt8(0) !== 0;
    } else if (valueTag === tag.resolution && valueLength === 9) {
      // RFC 8010 §3.9: cross-feed, feed, units (3 dots per inch, 4 per centimetre).
      const perInch = raw.readUInt8(8) === 4 ? 2.54 : 1;
      const x = Math.round(raw.readInt32BE(0) * perInch);
      const y = Math.round(raw.readInt32BE(4) * perInch);
      value = x === y ? `${x}dpi` : `${x}x${y}dpi`;
    } else if (valueTag === tag.rangeOfInteger && valueLength === 8) {
      value = `${raw.readInt32BE(0)}-${raw.readInt32BE(4)}`;
    } else {
      value = raw.toString('utf8');
    }
    lastName = name;
    const values = attributes[name];
    if (values === undefined || nameLength !== 0) {
      // A repeated name in a later group (several jobs) starts over: we ask about one only.
      attributes[name] = [value];
    } else {
      values.push(value);
    }
  }
  return { statusCode, attributes };
}

export class IppClient {
  private requestId = 1;
  private readonly baseUrl: string;

  /** `baseUrl` is the scheduler's HTTP address, `http://localhost:631` by default. */
  constructor(baseUrl = 'http://localhost:631') {
    this.baseUrl = baseUrl;
  }

  async getJob(cupsJobId: number): Promise<IppResponse> {
    return this.send(
      operations.getJobAttributes,
      { name: 'job-uri', uri: `ipp://localhost/jobs/${cupsJobId}` },
      ['job-state', 'job-state-reasons', 'job-printer-state-message', 'job-state-message'],
      '/jobs',
    );
  }

  async getPrinter(
    printer: string,
    requested: string[] = [
      'printer-state',
      'printer-state-message',
      'printer-state-reasons',
      'printer-is-accepting-jobs',
    ],
  ): Promise<IppResponse> {
    const path = `/printers/${encodeURIComponent(printer)}`;
    return this.send(
      operations.getPrinterAttributes,
      { name: 'printer-uri', uri: `ipp://localhost${path}` },
      requested,
      path,
    );
  }

  private async send(
    operation: number,
    target: { name: string; uri: string },
    requested: string[],
    path: string,
  ): Promise<IppResponse> {
    const body = encodeIppRequest(operation, this.requestId++, target, requested);
    // One connection per request (no kept-alive connections): a kept-alive socket that cupsd
    // closed meanwhile would fail the next poll. A poll every 250 ms does not need keep-alive.
    const response = await httpCall(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/ipp' },
      body,
      timeoutMs: 10_000,
    });
    if (response.status !== 200) {
      throw new Error(`CUPS answered HTTP ${response.status} to an IPP request`);
    }
    return decodeIppResponse(response.body);
  }
}
