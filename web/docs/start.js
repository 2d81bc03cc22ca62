// Renders /v1/openapi.json with Swagger UI. A separate file: the page's CSP allows no inline script.
// validatorUrl null: Swagger UI would otherwise send the document to its public validator for a badge.
window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  persistAuthorization: false,
});
