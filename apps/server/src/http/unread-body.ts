import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * After answering a request whose body it did not read, the server half-closes the connection and stops
 * reading from it, then closes it this long after. Closing at once would not do: a socket closed with unread
 * data is reset by the kernel, and a client that had not read the answer yet loses it. Not read meanwhile, the
 * client's sending stops once the sockets' buffers are full (a few megabytes on loopback).
 */
const lingeringMs = 2_000;

/** Sockets already closing this way (the finish hook and Node's `destroySoon` may both ask). */
const lingering = new WeakSet<Socket>();

/** Whether a request says it has a body: a `Content-Length` above 0, or chunks. */
export function declaresBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Marks the answer being written to `req` as the connection's last, when the request's body was not read to its
 * end: the answer says `Connection: close`, and the connection is closed without reading the rest of the body
 * (`lingeringClose`). Called by whatever answers before reading (the problem writer, the refusal above).
 */
export function closeUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || !declaresBody(req) || res.headersSent) return;
  res.shouldKeepAlive = false;
  // Node ends a connection whose answer was its last with `destroySoon`, which closes the socket at once.
  const socket = req.socket;
  socket.destroySoon = () => lingeringClose(socket);
}

/** Half-closes a connection after its answer, reads no more of it, and closes it once the client had its chance. */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  socket.end();
  socket.pause();
  // Node resumes an unread request on the next tick, to discard it: paused again after that.
  setImmediate(() => socket.pause());
  setTimeout(() => socket.destroy(), lingeringMs).unref();
}
