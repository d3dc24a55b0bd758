/* global window */
// Starts Swagger UI on the document this server generates from its contract.
window.addEventListener('load', function () {
  window.SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
  });
});
