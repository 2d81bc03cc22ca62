// Debian's nginx with the shipped proxy configuration in front of real `serve` processes: the helper the
// soak shares (scripts/nginx-proxy.mjs), with its types.
export { hasNginx, SHIPPED_CONFIG, startProxy } from '../../scripts/nginx-proxy.mjs';

export interface NginxProxy {
  port: number;
  /** nginx's output and error log so far (for failure messages). */
  errors(): string;
  stop(): Promise<void>;
}
