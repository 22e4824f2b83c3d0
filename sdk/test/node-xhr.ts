/**
 * A small XMLHttpRequest over node:http, so the XHR transport's logic (offsets into a growing
 * responseText, error bodies at load, abort, recycling) runs against the same real servers as
 * the fetch transport. It follows the standard's event order (readystatechange 2, then 3 and
 * progress per chunk, then 4 and load / error / abort), and on a network error replaces
 * responseText with a message the way React Native's does, so reading it then would show. Not
 * React Native itself: that runs under the react-native package's own tests.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';

type Handler = (() => void) | null;

export class NodeXMLHttpRequest {
  static readonly UNSENT = 0;
  static readonly OPENED = 1;
  static readonly HEADERS_RECEIVED = 2;
  static readonly LOADING = 3;
  static readonly DONE = 4;

  readyState = 0;
  status = 0;
  responseText = '';
  onreadystatechange: Handler = null;
  onprogress: Handler = null;
  onload: Handler = null;
  onerror: Handler = null;
  ontimeout: Handler = null;
  onabort: Handler = null;

  private method = 'GET';
  private url = '';
  private headers: Record<string, string> = {};
  private request: ClientRequest | null = null;
  private response: IncomingMessage | null = null;
  private settled = false;

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
    this.setState(1);
  }

  setRequestHeader(name: string, value: string): void {
    if (this.readyState !== 1) throw new Error('InvalidStateError: open() first');
    this.headers[name] = value;
  }

  getResponseHeader(name: string): string | null {
    const value = this.response?.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  send(): void {
    const req = request(this.url, { method: this.method, headers: this.headers }, (res) => {
      this.response = res;
      this.status = res.statusCode ?? 0;
      this.setState(2);
      res.setEncoding('utf8'); // decodes a character split across chunks whole, as browsers do
      res.on('data', (chunk: string) => {
        if (this.settled) return;
        this.responseText += chunk;
        this.setState(3);
        this.onprogress?.();
      });
      res.on('end', () => {
        if (this.settled) return;
        this.settled = true;
        this.setState(4);
        this.onload?.();
      });
      res.on('close', () => this.fail());
      res.on('error', () => this.fail());
    });
    req.on('error', () => this.fail());
    req.end();
    this.request = req;
  }

  abort(): void {
    if (this.settled) return;
    this.settled = true;
    this.request?.destroy();
    this.responseText = '';
    this.status = 0;
    this.setState(4);
    this.onabort?.();
    this.readyState = 0;
  }

  private fail(): void {
    if (this.settled) return;
    this.settled = true;
    this.responseText = 'Network error (as React Native reports it)';
    this.status = 0;
    this.setState(4);
    this.onerror?.();
  }

  private setState(state: number): void {
    this.readyState = state;
    this.onreadystatechange?.();
  }
}
