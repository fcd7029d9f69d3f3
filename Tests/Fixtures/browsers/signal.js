// A signal from the test to a page on file:// with no server: the test writes a script file
// beside the page; the page tries to load it every 200 ms and acts once it loads.
function watchSignal(name, action) {
  let fired = false;
  const poll = () => {
    if (fired) return;
    const script = document.createElement("script");
    script.src = name + "?" + Date.now();
    script.onload = () => { fired = true; script.remove(); action(); };
    script.onerror = () => { script.remove(); setTimeout(poll, 200); };
    document.head.appendChild(script);
  };
  poll();
}
