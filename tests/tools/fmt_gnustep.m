// Formats texts with Foundation's +[NSString stringWithFormat:] as GNUstep implements it: the
// Apple (and C printf) side of tests/api/placeholder_pairs.rs.
//
//   gcc -std=gnu11 $(gnustep-config --objc-flags) fmt_gnustep.m -o fmt_gnustep
//     $(gnustep-config --base-libs) -lffi
//   echo '[{"text": "%2$@ has %1$lld", "args": [3, "Ana"]}]' | ./fmt_gnustep
//   -> ["Ana has 3"]
//
// stdin: a JSON list of {"text", "args": [...]}. An app passes each argument with the C type
// its placeholder names, so this driver reads the text's conversions first (`%2$@`, `%lld`,
// `%.2f`, ...) and passes argument n with the type of the conversion that uses it: int for
// `%d`, long for `%ld`, long long for `%lld`, double for `%f`, an NSString object for `%@`,
// a UTF-8 C string for `%s`. The variadic call itself is made with libffi, so the arguments go
// through the real C calling convention, as a compiled call site would pass them.
// stdout: a JSON list, per text the formatted string or {"error": "..."} for a text an app
// could not call safely (an argument used with two types, a missing argument, a conversion
// this driver does not pass).
//
// A text may also be a list of property-list files: {"strings": ["path", ...]} answers each
// file's dictionary as GNUstep's -[NSString propertyListFromStringsFileFormat] reads it (what
// NSBundle does with Localizable.strings), or {"error": "..."}.
#import <Foundation/Foundation.h>
#include <ffi.h>

// GCC's Objective-C has no object literals (@{...}) or subscripts: plain messages below.
static NSDictionary *failure(NSString *message) {
  return [NSDictionary dictionaryWithObject:message forKey:@"error"];
}

enum kind { NONE, INT, LONG, LONGLONG, DOUBLE, OBJECT, CSTRING };

// The type of each argument (1-based) the format uses, or an error message.
static NSString *argumentKinds(NSString *format, enum kind *kinds, int capacity, int *count) {
  NSUInteger length = [format length];
  unichar *chars = malloc(sizeof(unichar) * (length + 1));
  [format getCharacters:chars];
  chars[length] = 0;
  int next = 1;
  *count = 0;
  NSString *error = nil;
  for (NSUInteger i = 0; i < length && error == nil; i++) {
    if (chars[i] != '%') continue;
    i++;
    if (chars[i] == '%') continue;
    // An explicit argument number: digits followed by '$'.
    NSUInteger j = i;
    int number = 0;
    while (chars[j] >= '0' && chars[j] <= '9') number = number * 10 + (chars[j++] - '0');
    if (chars[j] == '$' && j > i) {
      i = j + 1;
    } else {
      number = next++;
    }
    while (chars[i] && strchr("-+ #0'", chars[i])) i++;
    if (chars[i] == '*') { error = @"'*' width is not passed by this driver"; break; }
    while (chars[i] >= '0' && chars[i] <= '9') i++;
    if (chars[i] == '.') {
      i++;
      while (chars[i] >= '0' && chars[i] <= '9') i++;
    }
    int longs = 0;
    while (chars[i] && strchr("hlqLzjt", chars[i])) {
      if (chars[i] == 'l') longs++;
      if (chars[i] == 'q') longs = 2;
      if (chars[i] == 'z' || chars[i] == 'j' || chars[i] == 't') longs = 1;
      i++;
    }
    enum kind kind;
    switch (chars[i]) {
      case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'c':
        kind = longs == 0 ? INT : longs == 1 ? LONG : LONGLONG;
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        kind = DOUBLE;
        break;
      case '@': kind = OBJECT; break;
      case 's': kind = CSTRING; break;
      default:
        error = [NSString stringWithFormat:@"conversion '%C' is not passed by this driver", chars[i]];
        continue;
    }
    if (number < 1 || number > capacity) {
      error = [NSString stringWithFormat:@"argument %d is out of range", number];
    } else if (kinds[number - 1] != NONE && kinds[number - 1] != kind) {
      error = [NSString stringWithFormat:@"argument %d is used with two types", number];
    } else {
      kinds[number - 1] = kind;
      if (number > *count) *count = number;
    }
  }
  free(chars);
  return error;
}

static id formatted(NSString *format, NSArray *args) {
  enum { MAX_ARGS = 16 };
  enum kind kinds[MAX_ARGS] = {NONE};
  int count = 0;
  NSString *error = argumentKinds(format, kinds, MAX_ARGS, &count);
  if (error == nil && count > (int)[args count]) {
    error = [NSString stringWithFormat:@"the text uses %d arguments, %lu given", count,
                                       (unsigned long)[args count]];
  }
  for (int n = 0; n < count && error == nil; n++) {
    // GNUstep (as Apple's va_list reading) must know every argument's type to reach a later
    // one: a text that skips an argument crashes the formatter, so it is refused here.
    if (kinds[n] == NONE) error = [NSString stringWithFormat:@"argument %d is never used", n + 1];
  }
  if (error != nil) return failure(error);

  // Receiver, selector and format are the fixed arguments; then one value per placeholder.
  ffi_type *types[3 + MAX_ARGS];
  void *values[3 + MAX_ARGS];
  union { int i; long l; long long ll; double d; id o; const char *s; } storage[MAX_ARGS];
  Class receiver = [NSString class];
  SEL selector = @selector(stringWithFormat:);
  IMP method = [NSString methodForSelector:selector];
  types[0] = &ffi_type_pointer; values[0] = &receiver;
  types[1] = &ffi_type_pointer; values[1] = &selector;
  types[2] = &ffi_type_pointer; values[2] = &format;
  for (int n = 0; n < count; n++) {
    id arg = [args objectAtIndex:n];
    NSString *text = [arg isKindOfClass:[NSString class]] ? arg : [arg description];
    switch (kinds[n]) {
      case INT: storage[n].i = [arg intValue]; types[3 + n] = &ffi_type_sint; break;
      case LONG: storage[n].l = [arg longValue]; types[3 + n] = &ffi_type_slong; break;
      case LONGLONG: storage[n].ll = [arg longLongValue]; types[3 + n] = &ffi_type_sint64; break;
      case DOUBLE: storage[n].d = [arg doubleValue]; types[3 + n] = &ffi_type_double; break;
      case OBJECT: storage[n].o = text; types[3 + n] = &ffi_type_pointer; break;
      case CSTRING: storage[n].s = [text UTF8String]; types[3 + n] = &ffi_type_pointer; break;
      case NONE: break;
    }
    values[3 + n] = &storage[n];
  }
  ffi_cif cif;
  if (ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, 3, 3 + count, &ffi_type_pointer, types) != FFI_OK) {
    return failure(@"libffi could not prepare the call");
  }
  id result = nil;
  ffi_call(&cif, FFI_FN(method), &result, values);
  return result;
}

static id stringsFile(NSString *path) {
  NSString *contents = [NSString stringWithContentsOfFile:path];
  if (contents == nil) return failure([@"cannot read " stringByAppendingString:path]);
  @try {
    id dictionary = [contents propertyListFromStringsFileFormat];
    if (dictionary == nil) return failure([@"not a strings file: " stringByAppendingString:path]);
    return dictionary;
  } @catch (NSException *exception) {
    return failure([NSString stringWithFormat:@"%@: %@", path, [exception reason]]);
  }
}

int main(void) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  {
    NSData *input = [[NSFileHandle fileHandleWithStandardInput] readDataToEndOfFile];
    NSError *error = nil;
    NSArray *items = [NSJSONSerialization JSONObjectWithData:input options:0 error:&error];
    if (items == nil) {
      fprintf(stderr, "fmt_gnustep: stdin is not JSON: %s\n", [[error description] UTF8String]);
      return 2;
    }
    NSMutableArray *answers = [NSMutableArray array];
    for (NSDictionary *item in items) {
      if ([item objectForKey:@"strings"] != nil) {
        NSMutableArray *files = [NSMutableArray array];
        for (NSString *path in [item objectForKey:@"strings"]) [files addObject:stringsFile(path)];
        [answers addObject:files];
      } else {
        NSArray *args = [item objectForKey:@"args"] != nil ? [item objectForKey:@"args"] : [NSArray array];
        [answers addObject:formatted([item objectForKey:@"text"], args)];
      }
    }
    NSData *output = [NSJSONSerialization dataWithJSONObject:answers options:0 error:&error];
    fwrite([output bytes], 1, [output length], stdout);
  }
  [pool release];
  return 0;
}
