/** HTTP from the host to what runs on the single-node cluster (a Service's ClusterIP, a pod, CoreDNS). */
import * as http from 'node:http';

/** An answer: its status, and its body parsed as JSON when it is JSON, else its text. */
export interface Answer { readonly status: number; readonly body: any }

/**
 * One request without keep-alive (each connection is balanced by kube-proxy's rules anew): a GET, or a
 * POST of `body` as JSON.
 */
export function request(url: string, body?: unknown, timeoutMs = 120_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, {
      method: payload ? 'POST' : 'GET',
      agent: false,
      timeout: timeoutMs,
      headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {},
    }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parsed(text) }));
    });
    req.on('error', reject).on('timeout', () => req.destroy(new Error(`no answer from ${url} in ${timeoutMs / 1000} s`)));
    req.end(payload);
  });
}

function parsed(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
