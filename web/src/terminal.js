// The terminal of the page `pxp serve` serves: xterm.js with its image addon (Sixel and inline images), speaking
// textual-serve's websocket protocol. Built by scripts/build_web.py into pxp_tui/app/shell/web/static/terminal.js.
//
// The protocol (textual-serve's): the page opens the websocket with the terminal's size in cells; it sends
// ["stdin", text] for what the terminal sends (keys, mouse, its answers to questions), ["resize", {width, height}],
// ["focus"], ["blur"], ["ping", stamp]; it receives the app's output as binary frames, and JSON text frames
// ["open_url", {url, new_tab}], ["deliver_file_start", key] (a file for a new tab), ["pong", stamp].
// Before the app starts, the server asks the terminal what it draws (DA1: Sixel is attribute 4, which the image
// addon adds) and its cell size in pixels (CSI 16 t, which the image addon enables): the answers go back as stdin.

import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { ImageAddon } from "@xterm/addon-image";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { WebglAddon } from "@xterm/addon-webgl";

const FONT = "'Roboto Mono', Monaco, 'Courier New', monospace";

class Session {
  constructor(element) {
    this.element = element;
    this.websocketUrl = element.dataset.sessionWebsocketUrl;
    this.downloadUrl = element.dataset.downloadUrl;
    this.socket = null;
    this.size = null;
    this.terminal = new Terminal({
      allowProposedApi: true,
      fontSize: Number(element.dataset.fontSize) || 16,
      fontFamily: FONT,
      scrollback: 0,
      macOptionIsMeta: true, // Option+s is alt+s (the browser's keys for ctrl+s and the like), not "ß"
    });
    this.fitAddon = new FitAddon();
    this.terminal.loadAddon(this.fitAddon);
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = "11";
    this.terminal.loadAddon(new WebLinksAddon());
    // the X-ray's pixels: Sixel (and iTerm's inline images), up to a 4096 x 4096 picture
    this.terminal.loadAddon(new ImageAddon({ sixelSupport: true, iipSupport: true, storageLimit: 256 }));
    this.terminal.open(element);
    this.useWebgl();
    const screen = this.terminal.element.querySelector(".xterm-screen");
    screen.addEventListener("blur", () => this.send(["blur"]), true);
    screen.addEventListener("focus", () => this.send(["focus"]), true);
    this.terminal.onResize((event) => {
      this.size = { width: event.cols, height: event.rows };
      this.send(["resize", this.size]);
    });
    this.terminal.onData((data) => this.send(["stdin", data]));
    this.terminal.onBinary((data) => this.send(["stdin", data]));
    window.addEventListener("resize", () => this.fit());
  }

  useWebgl() {
    // WebGL draws faster than the DOM renderer; where the browser has none (no GPU, blocked), the DOM draws
    try {
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => webgl.dispose());
      this.terminal.loadAddon(webgl);
    } catch (error) {
      console.log("pxp: WebGL unavailable, the terminal is drawn by the DOM", error);
    }
  }

  send(message) {
    if (this.socket !== null && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  fit() {
    this.fitAddon.fit();
  }

  connect() {
    this.fit();
    const proposed = this.fitAddon.proposeDimensions() || { cols: 80, rows: 24 };
    this.size = { width: proposed.cols, height: proposed.rows };
    const url = `${this.websocketUrl}?width=${proposed.cols}&height=${proposed.rows}`;
    this.socket = new WebSocket(url);
    this.socket.binaryType = "arraybuffer";
    this.socket.addEventListener("open", () => {
      this.element.classList.add("-connected");
      this.fit();
      this.send(["resize", this.size]);
      document.body.classList.add("-loaded");
      this.terminal.focus();
    });
    this.socket.addEventListener("close", () => document.body.classList.add("-closed"));
    this.socket.addEventListener("message", (event) => this.receive(event.data));
  }

  receive(data) {
    if (typeof data !== "string") {
      const bytes = new Uint8Array(data);
      this.terminal.write(bytes);
      if (bytes.length > 10) {
        document.body.classList.add("-first-byte");
      }
      return;
    }
    const [type, payload] = JSON.parse(data);
    if (type === "open_url") {
      window.open(payload.url, payload.new_tab ? "_blank" : "_self", "noopener");
    } else if (type === "deliver_file_start") {
      window.open(this.downloadUrl + encodeURIComponent(payload), "_blank");
    }
  }
}

async function start() {
  // the cells are measured in the page's own font: wait for it (served from here) before the terminal is made
  try {
    await document.fonts.load(`16px 'Roboto Mono'`);
  } catch (error) {
    console.log("pxp: the font did not load", error);
  }
  const delayed = new URLSearchParams(window.location.search).has("delay");
  if (delayed) {
    document.querySelector("#start").classList.add("-delay");
  }
  for (const element of document.querySelectorAll(".textual-terminal")) {
    const session = new Session(element);
    window.pxpSession = session;
    if (!delayed) {
      session.connect();
    }
  }
}

window.addEventListener("load", () => {
  start();
});
