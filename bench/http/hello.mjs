// The baseline: a bare uWS hello-world on the same binary the service uses.
import uws from '@trufflesuite/uws-js-unofficial';

uws
  .App()
  .get('/*', (res) => res.end('{"hello":"world"}'))
  .listen('127.0.0.1', 0, (socket) => {
    console.log(JSON.stringify({ port: uws.us_socket_local_port(socket) }));
  });
