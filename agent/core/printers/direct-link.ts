import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { type DirectAddress, describeAddress } from './direct-address.ts';

/**
 * One duplex byte stream to a printer reached directly: a TCP connection to its raw port, or
 * its USB device file. The status dialects (escpos-status.ts, starprnt-status.ts,
 * zpl-status.ts) write requests and take answers from it; neither side knows which it is.
 */
export interface PrinterLink {
  /** Resolves once the bytes are handed to the system; rejects if the link is gone. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * The next value `take` finds in what the printer sent. `take` sees the bytes not yet
   * consumed and answers null (wait for more), or how many bytes it used and, when they held
   * what it looks for, the value. Rejects with LinkClosed or LinkTimeout.
   */
  next<T>(take: Taker<T>, timeoutMs: number): Promise<T>;
  /** Resolves once the system has let go of it (the next open may need the device free). */
  close(): Promise<void>;
  /** Bytes the system accepted for the printer so far. */
  readonly written: number;
}

export type Taker<T> = (bytes: Buffer) => { used: number; value?: T } | null;

/** The printer went away (closed the connection, the device was unplugged). */
export class LinkClosed extends Error {}
/** The printer did not send what was waited for in time. */
export class LinkTimeout extends Error {}
/** The link could not be opened: nothing was sent. */
export class LinkUnreachable extends Error {}

export async function openLink(address: DirectAddress, timeoutMs: number): Promise<PrinterLink> {
  return address.kind === 'socket'
    ? SocketLink.open(address.host, address.port, timeoutMs)
    : DeviceLink.open(address.path);
}

interface Waiter {
  take: Taker<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** What both links share: the bytes received and the one reader waiting for them. */
abstract class BufferedLink implements PrinterLink {
  protected received: Buffer = Buffer.alloc(0);
  protected waiter: Waiter | null = null;
  protected gone: Error | null = null;
  written = 0;

  abstract write(bytes: Uint8Array): Promise<void>;
  abstract close(): Promise<void>;
  protected abstract wantData(): void;

  next<T>(take: Taker<T>, timeoutMs: number): Promise<T> {
    if (this.waiter) return Promise.reject(new Error('one reader at a time'));
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new LinkTimeout(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        take: take as Taker<unknown>,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
      };
      this.deliver();
      if (this.waiter) this.wantData();
    });
  }

  protected receive(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    this.deliver();
  }

  protected end(error: Error): void {
    if (this.gone) return;
    this.gone = error;
    this.deliver();
  }

  private deliver(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    for (;;) {
      const found = this.received.length > 0 ? waiter.take(this.received) : null;
      if (found === null) break;
      this.received = this.received.subarray(found.used);
      if ('value' in found) {
        this.settle(waiter);
        waiter.resolve(found.value);
        return;
      }
    }
    if (this.gone) {
      this.settle(waiter);
      waiter.reject(this.gone);
    }
  }

  private settle(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    this.waiter = null;
  }
}

class SocketLink extends BufferedLink {
  private readonly socket: Socket;

  private constructor(socket: Socket) {
    super();
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => {});
    socket.on('close', () => this.end(new LinkClosed('the printer closed the connection')));
  }

  static open(host: string, port: number, timeoutMs: number): Promise<PrinterLink> {
    const place = describeAddress({ kind: 'socket', host, port });
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, noDelay: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new LinkUnreachable(`${place} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new LinkUnreachable(`cannot connect to ${place}: ${connectWords(error)}`));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new SocketLink(socket));
      });
    });
  }

  write(bytes: Uint8Array): Promise<void> {
    if (this.gone) return Promise.reject(this.gone);
    return new Promise((resolve, reject) => {
      this.socket.write(bytes, (error) => {
        if (error) return reject(new LinkClosed(`the connection broke: ${error.message}`));
        this.written += bytes.length;
        resolve();
      });
    });
  }

  protected wantData(): void {}

  close(): Promise<void> {
    if (this.socket.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.destroy();
    });
  }
}

function connectWords(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is it switched on, and is this its address?)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to it (is it on this network?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'its name is not known (check the host name)';
    default:
      return error.message;
  }
}

/**
 * A device file opened read-write and non-blocking: a write that the device cannot take now
 * waits a little and tries again; reads are tried only while an answer is awaited, so an idle
 * link costs nothing.
 */
class DeviceLink extends BufferedLink {
  private readonly handle: FileHandle;
  private reading = false;
  private closed = false;

  private constructor(handle: FileHandle) {
    super();
    this.handle = handle;
  }

  static async open(path: string): Promise<PrinterLink> {
    try {
      const flags = constants.O_RDWR | constants.O_NONBLOCK | constants.O_NOCTTY;
      return new DeviceLink(await open(path, flags));
    } catch (error) {
      throw new LinkUnreachable(`cannot open ${path}: ${(error as Error).message}`);
    }
  }

  async write(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      if (this.gone) throw this.gone;
      try {
        const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
        this.written += bytesWritten;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.end(new LinkClosed(`the device broke off: ${(error as Error).message}`));
          throw this.gone;
        }
        await pause(10);
      }
    }
  }

  protected wantData(): void {
    if (this.reading || this.closed) return;
    this.reading = true;
    void this.readWhileWaited();
  }

  /**
   * Reads while a reader waits. `reading` is cleared in the same turn as the loop sees no
   * reader, so a reader that comes right after (the next answer of a status request) starts
   * the loop again rather than waiting on one that has ended.
   */
  private async readWhileWaited(): Promise<void> {
    const chunk = Buffer.alloc(4096);
    for (;;) {
      if (!this.waiter || this.gone || this.closed) {
        this.reading = false;
        return;
      }
      try {
        const { bytesRead } = await this.handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) await pause(20);
        else this.receive(Buffer.from(chunk.subarray(0, bytesRead)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') await pause(20);
        else this.end(new LinkClosed(`the device broke off: ${(error as Error).message}`));
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.end(new LinkClosed('closed'));
    // Measured with a pseudo-terminal: an open that comes before this close has finished
    // gets no answers.
    await this.handle.close().catch(() => {});
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
