/* Inline checkout: ServiceCheckout(config) starts a payment and sends the
 * browser to the hosted checkout page. The service's address is taken from
 * this script's own URL, never from the page that includes it. */
(function () {
  "use strict";
  var script = document.currentScript;
  var src = script && script.src ? script.src : "";
  var base = src.replace(/\/js\/payment\.js(?:[?#].*)?$/, "");

  function fail(config, message) {
    if (config && typeof config.onerror === "function") {
      config.onerror(message);
    } else {
      window.alert(message);
    }
  }

  function describe(body) {
    if (!body) return "The payment could not be started.";
    if (typeof body.message === "string") return body.message;
    if (body.message && typeof body.message === "object") {
      var parts = [];
      Object.keys(body.message).forEach(function (k) { parts = parts.concat(body.message[k]); });
      return parts.join("; ");
    }
    return "The payment could not be started.";
  }

  window.ServiceCheckout = function (config) {
    if (!base) { fail(config, "payment.js must be loaded from the payment service"); return; }
    config = config || {};
    var payload = {};
    ["tx_ref", "amount", "currency", "callback_url", "return_url", "customer",
     "customization", "meta"].forEach(function (k) {
      if (config[k] !== undefined && config[k] !== null) payload[k] = config[k];
    });
    var xhr = new XMLHttpRequest();
    xhr.open("POST", base + "/api/js_transfer");
    xhr.setRequestHeader("Content-Type", "application/json");
    xhr.setRequestHeader("Accept", "application/json");
    var key = "";
    // the config members holding the merchant's public key, in the order read (the
    // sandbox writes its dialect's list between the markers)
    var keyFields = /*KEY_FIELDS*/["public_key", "secret_key"]/*END_KEY_FIELDS*/;
    keyFields.forEach(function (k) {
      if (!key && typeof config[k] === "string") key = config[k];
    });
    xhr.setRequestHeader("Authorization", "Bearer " + key);
    xhr.onload = function () {
      var body = null;
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
      var ok = body && (body.status === "success" || body.status === "suucess") &&
               body.data && typeof body.data.checkout_url === "string";
      if (ok) {
        window.location.assign(body.data.checkout_url);
      } else {
        fail(config, describe(body));
      }
    };
    xhr.onerror = function () { fail(config, "The payment service could not be reached."); };
    xhr.send(JSON.stringify(payload));
  };
})();
