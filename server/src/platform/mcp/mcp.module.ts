import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifySchemaCompiler } from 'fastify';
import { problemBody } from '../../http/problem.js';
import { validationToFieldErrors, validatorCompiler } from '../../http/validation.js';
import { AppError } from '../../kernel/errors.js';
import type { Scope } from '../../kernel/access-terms/scopes.js';
import { MCP_TOOLS, type McpTool, type McpToolServices } from './mcp-tools.js';

/** Who an MCP request acts for: decided by the authenticate step, as for every route. */
export interface McpCaller {
  orgId: string;
  /** Why this caller may not use a tool needing `scope` (the REST routes' own check); undefined: it may. */
  refusal(scope: Scope): AppError | undefined;
  requestId: string;
}

type Validate = ((data: unknown) => boolean) & { errors?: Parameters<typeof validationToFieldErrors>[0] | null };

/** Each tool with its input validator, compiled once as a REST body's is (strict, text only). */
const TOOLS = new Map(MCP_TOOLS.map((tool) => [tool.name, {
  tool,
  validate: (validatorCompiler as FastifySchemaCompiler<unknown>)({ schema: tool.input, method: 'POST', url: '/v1/mcp', httpPart: 'body' }) as Validate,
}]));

/**
 * The SDK's validator of JSON Schemas (for what a client returns to the server), shared: left to
 * itself, each per-request server built an Ajv instance of its own, two thirds of a call's CPU.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** tools/list's answer, built once: the schemas are the REST bodies' own, as JSON Schema. */
const TOOL_LIST: Tool[] = MCP_TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: `${tool.description} Needs the ${tool.scope} scope.`,
  inputSchema: JSON.parse(JSON.stringify(tool.input)) as Tool['inputSchema'],
  annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.readOnly, openWorldHint: false },
}));

/**
 * The platform as an MCP server (Streamable HTTP, stateless): each request gets a fresh server
 * and transport from the SDK (the SDK's way to serve stateless requests without mixing up their
 * ids), answering in JSON. A tool's refusal (scope, role, validation, not found, a cap) is a tool
 * error carrying the REST API's problem document; anything else is the SDK's JSON-RPC error.
 */
export function createMcpHandler(deps: { services: McpToolServices; publicUrl: string; version: string; onError: (error: unknown) => void }) {
  function toolError(error: AppError, caller: McpCaller): CallToolResult {
    const problem = problemBody(error, deps.publicUrl, caller.requestId);
    return { isError: true, content: [{ type: 'text', text: `${problem.code}: ${problem.detail}` }], structuredContent: problem as unknown as Record<string, unknown> };
  }

  async function callTool(name: string, args: unknown, caller: McpCaller): Promise<CallToolResult> {
    const entry = TOOLS.get(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `No tool named ${name}; tools/list names them.`);
    const { tool, validate } = entry;
    const refused = caller.refusal(tool.scope);
    if (refused) return toolError(refused, caller);
    const input = args ?? {};
    if (!validate(input)) {
      return toolError(new AppError('validation_failed', `The arguments of ${name} are not valid.`, { errors: validationToFieldErrors(validate.errors ?? [], 'body') }), caller);
    }
    try {
      const result = await (tool as McpTool).run(deps.services, caller.orgId, input as never);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      if (error instanceof AppError) return toolError(error, caller);
      deps.onError(error);
      throw new McpError(ErrorCode.InternalError, 'The tool failed on the server; try again.');
    }
  }

  /** The answer to one POST: its status, headers and body text (JSON, or nothing for a notification). */
  return async function handle(request: Request, body: unknown, caller: McpCaller): Promise<{ status: number; headers: Headers; text: string }> {
    const server = new Server({ name: 'gatehouse', title: 'Gatehouse', version: deps.version }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: SCHEMA_VALIDATOR });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
    server.setRequestHandler(CallToolRequestSchema, (call) => callTool(call.params.name, call.params.arguments, caller));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(request, { parsedBody: body });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } finally {
      void server.close().catch(deps.onError);
    }
  };
}

export type McpHandler = ReturnType<typeof createMcpHandler>;
