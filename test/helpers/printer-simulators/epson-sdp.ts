import { createHash, randomBytes } from 'node:crypto';
import { elementsNamed, parseXml, textOf, type XmlElement } from './epos-xml.ts';

/**
 * An Epson TM intelligent printer on Server Direct Print, as Epson's Server Direct Print
 * User's Manual describes it (docs/cloudprnt.md lists the pages): at its interval it POSTs the
 * form `ConnectionType=GetRequest&ID=…&Name=…` to the URL set in WebConfig, each request
 * preceded by a dummy one that draws the server's Digest challenge (RFC 7616, MD5, qop auth);
 * an answer with a `<PrintRequestInfo>` is printed (its ePOS-Print XML read strictly, as the
 * printer would), then the result POSTed as `ConnectionType=SetResponse&ResponseFile=…`
 * (`<PrintResponseInfo Version="2.00">`, one `<ePOSPrint>` per job with its `printjobid`). An
 * empty answer means nothing to print. With no paper or its cover open, ePOS-Print answers
 * `EPTR_REC_EMPTY` or `EPTR_COVER_OPEN` before printing anything. With its status
 * notification on (WebConfig's Status Notification, the same URL, ID and password), it also
 * POSTs `ConnectionType=SetStatus&Status=<statusmonitor>` with its ASB bits: each
 * `statusEvery` cycles (its interval), and at once when they changed. A test drives it one
 * cycle at a time (`cycle()`) and sets the conditions and faults it needs.
 */

export interface EpsonSdpPrinterOptions {
  /** The URL typed into WebConfig (…/api/v1/cloudprnt/epson). */
  url: string;
  /** WebConfig's ID and Password, the Digest user and password. */
  id: string;
  password: string;
  name?: string;
  /** Status notification on: a `SetStatus` each this many cycles, and whenever it changed. */
  statusEvery?: number;
}

/** A job as it came out of the printer. */
export interface PrintedEposJob {
  printJobId: string | null;
  /** The text printed, a line per `<feed/>`. */
  text: string;
  /** The document's elements by name, counted: `{ text: 5, feed: 3, cut: 1, barcode: 1 }`. */
  elements: Record<string, number>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
export const eposNamespace = 'http://www.epson-pos.com/schemas/2011/03/epos-print';

/** The parameters of a `WWW-Authenticate: Digest …` challenge. */
function challengeOf(header: string | null): Record<string, string> | undefined {
  if (!header || !/^Digest\s/i.test(header)) return undefined;
  const params: Record<string, string> = {};
  for (const [, key, quoted, bare] of header.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) {
    params[key!.toLowerCase()] = quoted ?? bare ?? '';
  }
  return params;
}

/** Dots a character of font A is wide: `<text x>` counts dots. */
const charDots = 12;

/**
 * What a printed document comes to: its lines of text, each `<text>` at its `x` (in
 * characters of font A), and its elements counted.
 */
function printOf(root: XmlElement): Omit<PrintedEposJob, 'printJobId'> {
  let text = '';
  let line = '';
  const elements: Record<string, number> = {};
  const walk = (node: XmlElement) => {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      elements[child.name] = (elements[child.name] ?? 0) + 1;
      if (child.name === 'text') {
        const x = child.attributes.x;
        if (x !== undefined) line = line.padEnd(Math.round(Number(x) / charDots));
        line += textOf(child);
      } else if (child.name === 'feed') {
        text += `${line}\n`;
        line = '';
      } else walk(child);
    }
  };
  walk(root);
  return { text: text + line, elements };
}

/** The ePOS-Print status bits the simulator sets (the ePOS-Print XML User's Manual's list). */
const asb = {
  offline: 0x00000008,
  coverOpen: 0x00000020,
  receiptNearEnd: 0x00020000,
  receiptEnd: 0x00080000,
};

interface JobResult {
  printJobId: string | null;
  success: boolean;
  code: string;
}

export class EpsonSdpPrinter {
  readonly options: Required<Omit<EpsonSdpPrinterOptions, 'statusEvery'>> &
    Pick<EpsonSdpPrinterOptions, 'statusEvery'>;
  readonly condition = { paperEnd: false, paperNearEnd: false, coverOpen: false, offline: false };
  readonly printed: PrintedEposJob[] = [];
  /** What went on the wire, in order: `GetRequest 401`, `GetRequest 200 1 job`, … */
  readonly wire: string[] = [];
  /**
   * Faults a test sets: the answer to the next GetRequest is lost on the way (nothing
   * printed; the printer asks again at its next interval); the next result is lost (the
   * printer sends it again next cycle, as the manual says of a failed communication); every
   * result is sent twice; the printer prints and never sends a result.
   */
  readonly faults = {
    loseNextAnswer: false,
    dropNextResult: false,
    repeatResults: false,
    neverConfirm: false,
  };
  #unsent: string | undefined;
  #nc = 0;
  /** The ASB bits last notified, and the cycles since. */
  #notified: number | undefined;
  #sinceNotified = 0;

  constructor(options: EpsonSdpPrinterOptions) {
    this.options = { name: 'TM-m30III', ...options };
  }

  /** Polls another instance of the same server from now on. */
  through(url: string): this {
    this.options.url = url;
    return this;
  }

  #authorization(challenge: Record<string, string>): string {
    const { id, password } = this.options;
    const uri = new URL(this.options.url).pathname;
    const realm = challenge.realm ?? '';
    const nonce = challenge.nonce ?? '';
    const nc = (++this.#nc).toString(16).padStart(8, '0');
    const cnonce = randomBytes(8).toString('hex');
    const ha1 = md5(`${id}:${realm}:${password}`);
    const ha2 = md5(`POST:${uri}`);
    const response = md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
    return `Digest username="${id}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=MD5, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"`;
  }

  /**
   * One form POST as the printer sends it: a dummy request first, whose 401 carries the
   * Digest challenge, then the request with its credentials. The answer's status and text.
   */
  async post(form: Record<string, string>): Promise<{ status: number; body: string }> {
    const body = new URLSearchParams(form).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const dummy = await fetch(this.options.url, { method: 'POST', headers, body });
    await dummy.arrayBuffer();
    const challenge = challengeOf(dummy.headers.get('www-authenticate'));
    if (dummy.status !== 401 || !challenge) {
      return { status: dummy.status, body: '' };
    }
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: { ...headers, authorization: this.#authorization(challenge) },
      body,
    });
    return { status: response.status, body: await response.text() };
  }

  /** The form's common fields: the connection type, WebConfig's ID and the printer's name. */
  #form(type: string, extra: Record<string, string> = {}): Record<string, string> {
    return { ConnectionType: type, ID: this.options.id, Name: this.options.name, ...extra };
  }

  /** Asks for work: the answer's `<PrintRequestInfo>`, or undefined when it is empty. */
  async getRequest(): Promise<XmlElement | undefined> {
    const { status, body } = await this.post(this.#form('GetRequest'));
    if (status !== 200) {
      this.wire.push(`GetRequest ${status}`);
      return undefined;
    }
    if (body === '') {
      this.wire.push('GetRequest 200 empty');
      return undefined;
    }
    const info = parseXml(body);
    if (info.name !== 'PrintRequestInfo') throw new Error(`answered <${info.name}>`);
    this.wire.push(`GetRequest 200 ${elementsNamed(info, 'ePOSPrint').length} job`);
    return info;
  }

  /** Prints each job of the answer, or answers the error ePOS-Print gives before printing. */
  #print(info: XmlElement): JobResult[] {
    return elementsNamed(info, 'ePOSPrint').map((job) => {
      const idElement = elementsNamed(job, 'printjobid')[0];
      const printJobId = idElement ? textOf(idElement) : null;
      if (this.condition.coverOpen) return { printJobId, success: false, code: 'EPTR_COVER_OPEN' };
      if (this.condition.paperEnd) return { printJobId, success: false, code: 'EPTR_REC_EMPTY' };
      const document = elementsNamed(job, 'epos-print')[0];
      if (!document || document.attributes.xmlns !== eposNamespace) {
        return { printJobId, success: false, code: 'SchemaError' };
      }
      this.printed.push({ printJobId, ...printOf(document) });
      return { printJobId, success: true, code: '' };
    });
  }

  /** A `<PrintResponseInfo Version="2.00">`, as the manual's example writes it. */
  static responseFile(results: readonly JobResult[]): string {
    const jobs = results.map(
      (r) =>
        `<ePOSPrint><Parameter><devid>local_printer</devid>${r.printJobId === null ? '' : `<printjobid>${r.printJobId}</printjobid>`}</Parameter><PrintResponse><response xmlns="${eposNamespace}" success="${r.success}" code="${r.code}" status="${r.success ? 251658262 : 252641300}" battery="0"/></PrintResponse></ePOSPrint>`,
    );
    return `<?xml version="1.0" encoding="UTF-8"?>\n<PrintResponseInfo Version="2.00">${jobs.join('')}</PrintResponseInfo>`;
  }

  /**
   * The printer's ASB bits as ePOS-Print gives them: a printer with no paper or its cover open
   * is offline too.
   */
  asbStatus(): number {
    const { paperEnd, paperNearEnd, coverOpen, offline } = this.condition;
    let bits = 0;
    if (paperEnd) bits |= asb.receiptEnd | asb.offline;
    if (paperNearEnd && !paperEnd) bits |= asb.receiptNearEnd;
    if (coverOpen) bits |= asb.coverOpen | asb.offline;
    if (offline) bits |= asb.offline;
    return bits;
  }

  /** The status notification's `Status`, as the manual's example writes it. */
  static statusFile(bits: number): string {
    const hex = `0x${bits.toString(16).toUpperCase().padStart(8, '0')}`;
    return `<?xml version="1.0" encoding="utf-8"?>\n<statusmonitor Version="1.00"><printerstatus devicename="local_printer" asbstatus="${hex}"/></statusmonitor>`;
  }

  /** Sends a status notification with the printer's bits now; its status. */
  async setStatus(): Promise<number> {
    const bits = this.asbStatus();
    const form = this.#form('SetStatus', { Status: EpsonSdpPrinter.statusFile(bits) });
    const { status } = await this.post(form);
    this.wire.push(`SetStatus ${status}`);
    if (status === 200) {
      this.#notified = bits;
      this.#sinceNotified = 0;
    }
    return status;
  }

  /** A status notification when one is due: its interval has passed, or the bits changed. */
  async #notifyIfDue(): Promise<void> {
    const every = this.options.statusEvery;
    if (every === undefined) return;
    this.#sinceNotified++;
    if (this.#notified === this.asbStatus() && this.#sinceNotified < every) return;
    await this.setStatus();
  }

  /** Sends a printing result; its status. */
  async setResponse(responseFile: string): Promise<number> {
    const { status } = await this.post(this.#form('SetResponse', { ResponseFile: responseFile }));
    this.wire.push(`SetResponse ${status}`);
    return status;
  }

  /**
   * One interval's work: a status notification when due; a result the network lost is sent
   * again; then the print request, and what it brings printed (or refused by the printer's
   * state) and its result sent.
   */
  async cycle(): Promise<void> {
    await this.#notifyIfDue();
    if (this.#unsent !== undefined && !this.faults.neverConfirm) {
      if ((await this.setResponse(this.#unsent)) === 200) this.#unsent = undefined;
    }
    const info = await this.getRequest();
    if (!info) return;
    if (this.faults.loseNextAnswer) {
      this.faults.loseNextAnswer = false;
      this.wire.push('GetRequest answer lost');
      return;
    }
    const results = this.#print(info);
    if (results.length === 0 || this.faults.neverConfirm) return;
    const file = EpsonSdpPrinter.responseFile(results);
    if (this.faults.dropNextResult) {
      this.faults.dropNextResult = false;
      this.#unsent = file;
      this.wire.push('SetResponse lost');
      return;
    }
    await this.setResponse(file);
    if (this.faults.repeatResults) await this.setResponse(file);
  }
}
