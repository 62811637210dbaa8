/*
 * Maproom's embed script: put a Maproom map in any page, and drive it.
 *
 *   <div id="map" style="height: 480px"></div>
 *   <script src="https://maps.example.org/embed.js"></script>
 *   <script>
 *     const map = Maproom.embed(document.getElementById('map'), { room: 'team-map01' });
 *     map.on('click', (event) => console.log(event.lngLat, event.marker));
 *     map.setView({ lat: 46.95, lng: 7.45, zoom: 12 });
 *   </script>
 *
 * Options: room (required), key (an embed key, for a private room), deck (true: the published
 * slide deck), view {lat, lng, zoom}, layers [id], basemap, controls [zoom, layers, legend,
 * search, time, fullscreen], interactive (false: a still map), title, height.
 * Types: /embed.d.ts. Messages go through postMessage, to and from the map's origin only.
 * A deck (deck: true) answers ready, setView, click and view; setLayers and openMarker do
 * nothing there.
 */
(function () {
  'use strict';
  var script = document.currentScript;
  var origin = new URL(script ? script.src : location.href).origin;
  var CONTROLS = ['zoom', 'layers', 'legend', 'search', 'time', 'fullscreen'];

  function address(options) {
    var query = [];
    var add = function (name, value) {
      query.push(name + '=' + encodeURIComponent(value).replace(/%2C/g, ','));
    };
    if (options.view) add('view', [options.view.lat, options.view.lng, options.view.zoom].join(','));
    if (options.layers) add('layers', options.layers.join(','));
    if (options.basemap) add('basemap', options.basemap);
    if (options.controls) add('controls', options.controls.filter(function (c) { return CONTROLS.indexOf(c) >= 0; }).join(','));
    if (options.interactive === false) add('interactive', '0');
    if (options.key) add('key', options.key);
    var path = '/e/' + encodeURIComponent(options.room) + (options.deck ? '/deck' : '');
    return origin + path + (query.length ? '?' + query.join('&') : '');
  }

  function embed(element, options) {
    if (!element || !options || typeof options.room !== 'string') throw new Error('Maproom.embed(element, {room}) needs an element and a room id');
    var frame = document.createElement('iframe');
    frame.src = address(options);
    frame.title = options.title || 'Map';
    frame.allow = 'fullscreen';
    frame.style.border = '0';
    frame.style.width = '100%';
    frame.style.height = options.height ? String(options.height) + (typeof options.height === 'number' ? 'px' : '') : '100%';
    element.appendChild(frame);

    var listeners = Object.create(null);
    listeners.ready = [];
    listeners.click = [];
    listeners.view = [];
    var ready = false;
    var waiting = [];
    var post = function (message) {
      message.maproom = 1;
      if (frame.contentWindow) frame.contentWindow.postMessage(message, origin);
    };
    var send = function (message) {
      if (ready) post(message);
      else waiting.push(message);
    };
    var receive = function (event) {
      if (event.source !== frame.contentWindow || event.origin !== origin) return;
      var data = event.data;
      if (!data || data.maproom !== 1) return;
      if (data.type === 'here') return post({ type: 'hello' });
      if (data.type === 'ready') {
        ready = true;
        var queued = waiting;
        waiting = [];
        queued.forEach(post);
      }
      (listeners[data.type] || []).forEach(function (listener) {
        listener(data);
      });
    };
    window.addEventListener('message', receive);
    frame.addEventListener('load', function () {
      ready = false;
      post({ type: 'hello' });
    });

    return {
      iframe: frame,
      /** Moves the map: {lat, lng, zoom?}. */
      setView: function (view) {
        send({ type: 'setView', view: view });
      },
      /** Shows these layers (ids) and hides the others. */
      setLayers: function (layers) {
        send({ type: 'setLayers', layers: layers });
      },
      /** Opens a marker's card and moves the map to it. */
      openMarker: function (markerId) {
        send({ type: 'openMarker', markerId: markerId });
      },
      /** Listens to 'ready', 'click' ({lngLat, marker?}) or 'view' ({view}); returns what stops it. */
      on: function (type, listener) {
        if (!listeners[type]) throw new Error('Maproom: no event ' + type);
        listeners[type].push(listener);
        return function () {
          listeners[type] = listeners[type].filter(function (l) {
            return l !== listener;
          });
        };
      },
      /** Removes the map from the page. */
      destroy: function () {
        window.removeEventListener('message', receive);
        frame.remove();
      },
    };
  }

  window.Maproom = { embed: embed, version: 1 };
})();
