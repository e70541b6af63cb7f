import { registerDecorator, type ValidationOptions } from 'class-validator';

/** A decimal number written as a string (scientific notation allowed), e.g. "1000", "0.5", "2.45e-5". */
export const DECIMAL_STRING = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Positive decimal string; the value is never converted to a JavaScript number. */
export function IsPositiveDecimalString(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isPositiveDecimalString',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a positive decimal string`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' &&
          DECIMAL_STRING.test(value) &&
          !value.startsWith('-') &&
          /[1-9]/.test(value.split(/[eE]/)[0] ?? ''),
      },
    });
  };
}
