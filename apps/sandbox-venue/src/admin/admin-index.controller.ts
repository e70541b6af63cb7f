import { Controller, Get, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService } from '@nestjs/core';

/**
 * `GET /admin`: every operator route, read from the controllers themselves (so the list cannot drift from them).
 * The launcher's banner prints this address; it answered 404 (outside tester). The bodies are in the sandbox's
 * README ("Operator API").
 */
@Controller('admin')
export class AdminIndexController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get()
  index(): { routes: string[]; docs: string } {
    const routes: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | null | undefined;
      if (typeof type !== 'function' || type === AdminIndexController) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '').replace(/^\/|\/$/g, '');
      if (base !== 'admin' && !base.startsWith('admin/')) continue;
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const path = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '').replace(/^\/|\/$/g, '');
        routes.push(`${RequestMethod[method]} /${[base, path].filter((part) => part !== '').join('/')}`);
      }
    }
    return { routes: routes.sort(), docs: 'apps/sandbox-venue/README.md#operator-api-json-under-admin-never-signed' };
  }
}
