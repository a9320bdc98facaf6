/**
 * A Star CloudPRNT printer (HTTP method) as Star's protocol reference describes it
 * (docs/cloudprnt.md lists the pages): it POSTs its status to the one URL it was given, with
 * HTTP basic credentials; answers the client actions the server asks for in its next POST; when
 * told `jobReady`, GETs the job in the first of the offered media types it accepts, prints it,
 * and DELETEs it with `code=200 OK` (or the 5xx it met), both with the answer's `jobToken` as
 * their `token` when it had one. A plain-text job is followed by a cut, the one its GET
 * answer's `X-Star-Cut` names (`none`: no cut), and opens the drawer when `X-Star-CashDrawer`
 * says `start` or `end`; other media types carry their own commands, and the printer reads
 * no header for them. A test drives it one cycle at a time (`cycle()`), so nothing depends on
 * timing, and puts it in the conditions and faults it needs.
 */

export interface CloudPrntPrinterOptions {
  /** The URL typed into the printer's settings (…/api/v1/cloudprnt). */
  url: string;
  user: string;
  password: string;
  mac?: string;
  clientType?: string;
  /** The media types it accepts, its preferred first (its `Encodings` answer). */
  encodings?: string[];
  pollIntervalSeconds?: number;
  /**
   * Whether its firmware knows the poll answer's `jobToken` (mC-Print3 3.2 and later, HI01X
   * 1.8, TSP100IV): false for older firmware, which sends no `token`.
   */
  takesJobToken?: boolean;
}

export interface PrintedJob {
  token: string | null;
  mediaType: string;
  bytes: Buffer;
  /** The cut after the job, for plain text (Star: plain text is followed by a cut, by default). */
  cut: 'full' | 'partial' | null;
  /** When the job pulsed the cash drawer (plain text, `X-Star-CashDrawer`), or null. */
  drawer: 'start' | 'end' | null;
}

/** What the GET answered: its status, and the job with what its headers ask for. */
export interface FetchedJob {
  status: number;
  mediaType: string;
  bytes: Buffer;
  cut: PrintedJob['cut'];
  drawer: PrintedJob['drawer'];
}

/** Star's plain-text rule: a cut unless `X-Star-Cut` says `none`; the drawer if asked. */
function controlsOf(mediaType: string, headers: Headers): Pick<FetchedJob, 'cut' | 'drawer'> {
  if (mediaType !== 'text/plain') return { cut: null, drawer: null };
  const cut = (headers.get('x-star-cut') ?? 'full').split(';')[0]!.trim();
  const drawer = headers.get('x-star-cashdrawer')?.trim();
  return {
    cut: cut === 'partial' ? 'partial' : cut === 'none' ? null : 'full',
    drawer: drawer === 'start' || drawer === 'end' ? drawer : null,
  };
}

/** What went on the wire, in order: `POST`, `GET 200`, `DELETE 200 OK`… */
export type WireEvent = string;

export class CloudPrntPrinter {
  readonly options: Required<CloudPrntPrinterOptions>;
  readonly condition = { paperEnd: false, coverOpen: false, nearEnd: false };
  /** What came out of the printer, in order. */
  readonly printed: PrintedJob[] = [];
  readonly wire: WireEvent[] = [];
  /** The last poll answer. */
  lastAnswer: Record<string, unknown> | undefined;
  /**
   * Faults a test sets: the network drops the next DELETE (the printer retries it on its next
   * cycle, as the reference's "Network Reliability and request retry" says); the printer
   * fetches but never confirms; the paper runs out after the GET, before printing; the GET's
   * answer is lost.
   */
  readonly faults = {
    dropNextDelete: false,
    neverConfirm: false,
    paperOutAfterGet: false,
    /** The network cuts during the next GET: the printer never gets the job, DELETEs with 520. */
    cutNextGet: false,
  };
  #pendingResults: { request: string; result: string }[] = [];
  #unconfirmed: { token: string | null; code: string } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: CloudPrntPrinterOptions) {
    this.options = {
      mac: '00:11:62:00:00:01',
      clientType: 'Star mC-Print3',
      encodings: [
        'application/vnd.star.starprnt',
        'text/vnd.star.markup',
        'image/png',
        'text/plain',
      ],
      pollIntervalSeconds: 2,
      takesJobToken: true,
      ...options,
    };
  }

  /** Polls through another address from now on (another instance of the same server). */
  through(url: string): this {
    this.options.url = url;
    return this;
  }

  get canPrint(): boolean {
    return !this.condition.paperEnd && !this.condition.coverOpen;
  }

  /** The status code the JSON request carries, from the printer's condition. */
  statusCode(): string {
    if (this.condition.coverOpen) return '420 Cover open';
    if (this.condition.paperEnd) return '410 Out of paper';
    if (this.condition.nearEnd) return '211 Paper low';
    return '200 OK';
  }

  /** The ASB bytes: byte 3 bit 5 cover open; byte 6 bit 3 paper end, bit 2 near end. */
  asb(): string {
    const third = (this.condition.coverOpen ? 0x20 : 0) | (this.canPrint ? 0 : 0x08);
    const sixth = (this.condition.paperEnd ? 0x08 : 0) | (this.condition.nearEnd ? 0x04 : 0);
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    return ['23', '86', hex(third), '00', '00', hex(sixth), '00', '00', '00'].join(' ');
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const basic = Buffer.from(`${this.options.user}:${this.options.password}`).toString('base64');
    return { authorization: `Basic ${basic}`, 'user-agent': 'CloudPRNT simulator', ...extra };
  }

  #query(params: Record<string, string | null | undefined>): string {
    const search = new URLSearchParams({ mac: this.options.mac });
    for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
    return `${this.options.url}?${search}`;
  }

  /** One POST; the answer, with the client actions asked kept for the next POST. */
  async poll(): Promise<Record<string, unknown>> {
    const body = {
      status: this.asb(),
      printerMAC: this.options.mac,
      statusCode: this.statusCode(),
      printingInProgress: false,
      ...(this.#pendingResults.length > 0 && { clientAction: this.#pendingResults }),
    };
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: this.#headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    });
    this.wire.push(`POST ${response.status}`);
    if (response.status !== 200) throw new Error(`poll answered ${response.status}`);
    this.#pendingResults = [];
    const answer = (await response.json()) as Record<string, unknown>;
    this.lastAnswer = answer;
    const asked = (answer.clientAction ?? []) as { request: string }[];
    for (const { request } of asked) {
      const result = this.#clientActionResult(request);
      if (result !== undefined) this.#pendingResults.push({ request, result });
    }
    return answer;
  }

  #clientActionResult(request: string): string | undefined {
    if (request === 'ClientType') return this.options.clientType;
    if (request === 'Encodings') return this.options.encodings.join(';');
    if (request === 'GetPollInterval') return String(this.options.pollIntervalSeconds);
    return undefined;
  }

  /** The GET; the job's bytes, media type, cut and drawer, or the status when not 200. */
  async fetchJob(type: string, token: string | null): Promise<FetchedJob> {
    const response = await fetch(this.#query({ type, token }), { headers: this.#headers() });
    const bytes = Buffer.from(await response.arrayBuffer());
    this.wire.push(`GET ${response.status}`);
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    return {
      status: response.status,
      mediaType,
      bytes,
      ...controlsOf(mediaType, response.headers),
    };
  }

  /** The DELETE with `code`; its status. */
  async confirm(token: string | null, code: string): Promise<number> {
    const response = await fetch(this.#query({ code, token }), {
      method: 'DELETE',
      headers: this.#headers(),
    });
    await response.arrayBuffer();
    this.wire.push(`DELETE ${response.status} ${code}`);
    return response.status;
  }

  /**
   * One poll interval's work: a DELETE the network lost is sent again first; then the POST
   * (again at once if client actions were asked, as the reference says); then, if a job is
   * ready and the printer can print, GET, print and DELETE.
   */
  async cycle(): Promise<void> {
    if (this.#unconfirmed && !this.faults.neverConfirm) {
      const { token, code } = this.#unconfirmed;
      if ((await this.confirm(token, code)) === 200) this.#unconfirmed = undefined;
    }
    let answer = await this.poll();
    if (this.#pendingResults.length > 0) answer = await this.poll();
    if (answer.jobReady !== true || !this.canPrint) return;
    const offered = (answer.mediaTypes ?? []) as string[];
    const type = this.options.encodings.find((accepted) => offered.includes(accepted));
    const given = this.options.takesJobToken ? answer.jobToken : undefined;
    const token = typeof given === 'string' ? given : null;
    if (!type) {
      await this.confirm(token, '510 Incompatible media type');
      return;
    }
    // The GET and the DELETE carry the poll's job token back, as Star's reference says.
    const job = await this.fetchJob(type, token);
    if (this.faults.cutNextGet) {
      this.faults.cutNextGet = false;
      this.wire.push('GET lost');
      await this.confirm(token, '520 Timeout');
      return;
    }
    if (job.status !== 200) {
      await this.confirm(token, '520 Timeout');
      return;
    }
    if (this.faults.paperOutAfterGet) {
      // Out of paper before a line printed: no DELETE; the next POST says 410, and once the
      // paper is back the printer GETs the job again (Print job confirmation, failure).
      this.faults.paperOutAfterGet = false;
      this.condition.paperEnd = true;
      return;
    }
    const { mediaType, bytes, cut, drawer } = job;
    this.printed.push({ token: token, mediaType, bytes, cut, drawer });
    if (this.faults.neverConfirm) return;
    if (this.faults.dropNextDelete) {
      this.faults.dropNextDelete = false;
      this.#unconfirmed = { token: token, code: '200 OK' };
      this.wire.push('DELETE lost');
      return;
    }
    await this.confirm(token, '200 OK');
  }

  /** Polls on its own every `pollIntervalSeconds` (benches); `stop()` ends it. */
  start(onError: (error: unknown) => void = () => {}): void {
    const tick = () => {
      this.cycle()
        .catch(onError)
        .finally(() => {
          if (this.#timer) this.#timer = setTimeout(tick, this.options.pollIntervalSeconds * 1000);
        });
    };
    this.#timer = setTimeout(tick, 0);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
